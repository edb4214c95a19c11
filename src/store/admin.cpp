#include "store/admin.hpp"

#include "rfdb_sql.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

namespace rfdb::store {

namespace {

Result<Table> collect(Statement& s)
{
  Table t;
  bool first = true;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    if (first) {
      for (int c = 0; c < s.column_count(); ++c) {
        t.columns.push_back(s.column_name(c));
      }
      first = false;
    }
    std::vector<std::optional<std::string>> cells;
    std::vector<bool> numeric;
    for (int c = 0; c < s.column_count(); ++c) {
      cells.push_back(s.get_opt_text(c));
      numeric.push_back(s.is_number(c));
    }
    t.rows.push_back(std::move(cells));
    t.numeric.push_back(std::move(numeric));
  }
  if (first) {
    for (int c = 0; c < s.column_count(); ++c) {
      t.columns.push_back(s.column_name(c));
    }
  }
  return t;
}

Result<std::vector<std::string>> first_column(Database& db, std::string_view sql, std::string_view name)
{
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql, name));
  Table t;
  RFDB_TRY_ASSIGN(t, collect(s));
  std::vector<std::string> out;
  for (const auto& row : t.rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += (i ? " " : "") + row[i].value_or("NULL");
    }
    out.push_back(line);
  }
  return out;
}

// Integers and reals bind as numbers, so `:flag = 1` comparisons work.
void bind_literal(Statement& s, const std::string& param, const std::string& value)
{
  char* end = nullptr;
  const long long i = std::strtoll(value.c_str(), &end, 10);
  if (!value.empty() && end != nullptr && *end == '\0') {
    s.bind(param.c_str(), static_cast<std::int64_t>(i));
    return;
  }
  const double d = std::strtod(value.c_str(), &end);
  if (!value.empty() && end != nullptr && *end == '\0') {
    s.bind(param.c_str(), d);
    return;
  }
  s.bind(param.c_str(), value);
}

} // namespace

bool CheckReport::ok() const
{
  return schema_version == newest_schema_version && integrity == std::vector<std::string>{"ok"} &&
         foreign_key_violations.empty() && orphans.empty();
}

Result<CheckReport> check(Database& db)
{
  CheckReport r;
  r.schema_version = db.schema_version();
  r.newest_schema_version = newest_schema_version();
  RFDB_TRY_ASSIGN(r.integrity, first_column(db, "PRAGMA integrity_check", "integrity_check"));
  RFDB_TRY_ASSIGN(r.foreign_key_violations,
                  first_column(db, "PRAGMA foreign_key_check", "foreign_key_check"));
  Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_check_orphans, "check_orphans"));
  Table t;
  RFDB_TRY_ASSIGN(t, collect(s));
  for (const auto& row : t.rows) {
    if (row[1] && *row[1] != "0") {
      r.orphans.push_back(fmt::format("{}: {}", row[0].value_or("?"), *row[1]));
    }
  }
  return r;
}

bool is_read_only(std::string_view sql)
{
  // Skip leading blanks and `--` comment lines, then look at the first word.
  std::size_t i = 0;
  while (i < sql.size()) {
    if (std::isspace(static_cast<unsigned char>(sql[i])) != 0) {
      ++i;
    } else if (sql.substr(i, 2) == "--") {
      i = sql.find('\n', i);
      i = i == std::string_view::npos ? sql.size() : i;
    } else {
      break;
    }
  }
  const auto word = sql.substr(i, 6);
  return word == "SELECT" || word.substr(0, 4) == "WITH";
}

std::vector<std::string> named_queries()
{
  std::vector<std::string> out;
  for (const auto& q : sql::k_queries) {
    if (is_read_only(q.sql)) {
      out.emplace_back(q.name);
    }
  }
  return out;
}

Result<Table> run_named_query(Database& db, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& params)
{
  for (const auto& q : sql::k_queries) {
    if (q.name != name) {
      continue;
    }
    if (!is_read_only(q.sql)) {
      return fail(ErrorCode::usage,
                  "query '" + name + "' writes to the database; rfdb query runs read-only queries");
    }
    Statement s;
    RFDB_TRY_ASSIGN(s, db.prepare(q.sql, q.name));
    for (const auto& [key, value] : params) {
      const std::string param = ":" + key;
      bind_literal(s, param, value);
    }
    return collect(s);
  }
  std::string names;
  for (const auto& n : named_queries()) {
    names += (names.empty() ? "" : ", ") + n;
  }
  return fail(make_error(ErrorCode::not_found, "no query named '" + name + "'")
                  .with_hint("available queries: " + names));
}

} // namespace rfdb::store
