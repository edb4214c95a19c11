// Database-wide tools: integrity check, the named queries of queries/ and run-id prefixes (see admin.hpp).
#include "store/admin.hpp"

#include "rfdb_sql.hpp"

#include "store/sources.hpp"
#include "store/text_codec.hpp"
#include "util/text.hpp"
#include "util/zstd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <string_view>

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
      cells.push_back(s.get_opt_text(c)); // a BLOB/BYTEA's bytes as they are (show_stored_text)
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
  auto prepared = db.prepare(sql, name);
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
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
  if (db.backend() == Backend::postgresql) {
    // PostgreSQL has no integrity_check and enforces foreign keys itself:
    // reading every table through once is the sanity check.
    RFDB_TRY(first_column(db,
                          "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM sources)"
                          " + (SELECT count(*) FROM verdicts) + (SELECT count(*) FROM attempts)"
                          " + (SELECT count(*) FROM learned_findings) AS n",
                          "integrity_check"));
    r.integrity = {"ok"};
  } else {
    RFDB_TRY_ASSIGN(r.integrity, first_column(db, "PRAGMA integrity_check", "integrity_check"));
    RFDB_TRY_ASSIGN(r.foreign_key_violations,
                    first_column(db, "PRAGMA foreign_key_check", "foreign_key_check"));
  }
  auto prepared = db.prepare(sql::k_check_orphans, "check_orphans");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  Table t;
  RFDB_TRY_ASSIGN(t, collect(s));
  for (const auto& row : t.rows) {
    if (row[1] && *row[1] != "0") {
      r.orphans.push_back(fmt::format("{}: {}", row[0].value_or("?"), *row[1]));
    }
  }
  return r;
}

Result<StoredCheck> check_stored_files(Database& db,
                                       const std::function<void(std::int64_t, std::int64_t)>& progress)
{
  StoredCheck out;
  auto dicts = db.prepare(sql::k_dicts_all, "dicts_all");
  if (!dicts) {
    return fail(std::move(dicts).error());
  }
  RFDB_TRY(for_each_row(*dicts, [&](const Statement& row) {
    const std::int64_t id = row.get_int("dict_id");
    ++out.dictionaries;
    auto dict = util::zstd::Dictionary::load(row.get_blob("dict"));
    if (!dict) {
      out.dictionary_problems.push_back({id, dict.error().message});
    } else if (static_cast<std::int64_t>(dict->id()) != id) {
      out.dictionary_problems.push_back(
          {id, fmt::format("the dictionary's bytes state id {}, its row {}", dict->id(), id)});
    }
  }));
  std::int64_t total = 0;
  if (progress) {
    std::vector<std::string> n;
    RFDB_TRY_ASSIGN(n, first_column(db, "SELECT count(*) AS n FROM sources", "sources_count"));
    total = n.empty() ? 0 : std::strtoll(n.front().c_str(), nullptr, 10);
  }
  auto s = db.prepare(sql::k_sources_verify, "sources_verify");
  if (!s) {
    return fail(std::move(s).error());
  }
  TextCodec codec(db);
  std::map<std::uint32_t, std::int64_t> frames_of; // dict_id -> stored frames naming it
  const auto verify = [&](const Statement& row) -> Result<void> {
    StoredFileProblem p;
    p.source_id = row.get_int("source_id");
    p.run_id = row.get_opt_text("run_id");
    p.rel_path = row.get_text("rel_path");
    p.current = row.get_int("superseded") == 0;
    if (const auto why = rel_path_problem(p.rel_path)) {
      StoredFileProblem path = p;
      path.what = "path";
      path.detail = "not a normalized relative path: " + *why;
      out.file_problems.push_back(std::move(path));
    }
    VerifiedText v;
    RFDB_TRY_ASSIGN(
        v, verify_frame(codec, row.get_blob("raw_zst"), row.get_int("bytes"), row.get_blob("sha256")));
    if (v.dict_id != 0) {
      ++frames_of[v.dict_id];
    }
    if (v.problem) {
      p.what = std::move(v.problem->what);
      p.detail = std::move(v.problem->detail);
      out.damaged.push_back(p.source_id);
      out.file_problems.push_back(std::move(p));
    }
    ++out.files;
    if (progress && out.files % 256 == 0) {
      progress(out.files, total);
    }
    return {};
  };
  RFDB_TRY(for_each_row(*s, verify));
  std::sort(out.damaged.begin(), out.damaged.end());
  for (auto& d : out.dictionary_problems) {
    const auto it = frames_of.find(static_cast<std::uint32_t>(d.dict_id));
    d.frames = it == frames_of.end() ? 0 : it->second;
  }
  std::vector<std::int64_t> bad;
  for (const auto& p : out.file_problems) {
    bad.push_back(p.source_id);
  }
  std::sort(bad.begin(), bad.end());
  bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
  out.verified = out.files - static_cast<std::int64_t>(bad.size());
  return out;
}

namespace {

// The header comment of a query file: description lines and `-- json:` columns.
void read_header(std::string_view sql, QueryInfo& info)
{
  std::size_t pos = 0;
  while (pos < sql.size()) {
    const auto end = std::min(sql.find('\n', pos), sql.size());
    const std::string line(util::trim(sql.substr(pos, end - pos)));
    pos = end + 1;
    if (line.empty()) {
      continue;
    }
    if (line.rfind("--", 0) != 0) {
      break;
    }
    const std::string text(util::trim(std::string_view(line).substr(2)));
    if (text.rfind("json:", 0) == 0) {
      std::string_view cols = std::string_view(text).substr(5);
      while (!cols.empty()) {
        const auto comma = std::min(cols.find(','), cols.size());
        if (const auto col = util::trim(cols.substr(0, comma)); !col.empty()) {
          info.json_columns.emplace_back(col);
        }
        cols = comma < cols.size() ? cols.substr(comma + 1) : std::string_view();
      }
    } else if (!text.empty()) {
      info.description += (info.description.empty() ? "" : " ") + text;
    }
  }
}

// The rule named `param` (domain::k_rule_parameters), or nullptr.
const domain::RuleParameter* rule_named(std::span<const domain::RuleParameter> rules, std::string_view param)
{
  const auto it = std::find_if(rules.begin(), rules.end(),
                               [&](const domain::RuleParameter& r) { return r.name == param; });
  return it == rules.end() ? nullptr : &*it;
}

// True when the SQL accepts :param as NULL ("… :param IS NULL OR …").
bool accepts_null(std::string_view sql, const std::string& param)
{
  const std::string needle = ":" + param + " IS NULL";
  return sql.find(needle) != std::string_view::npos;
}

Result<QueryInfo> describe_query(Database& db, const sql::NamedQuery& q)
{
  StatementInfo st;
  RFDB_TRY_ASSIGN(st, db.describe(q.sql, q.name));
  QueryInfo info;
  info.name = std::string(q.name);
  for (const auto& p : st.parameters) {
    if (rule_named(domain::k_rule_parameters, p) != nullptr) {
      if (std::find(info.rules.begin(), info.rules.end(), p) == info.rules.end()) {
        info.rules.push_back(p); // bound by run_named_query from the domain's rules
      }
      continue;
    }
    if (std::find(info.parameters.begin(), info.parameters.end(), p) == info.parameters.end()) {
      info.parameters.push_back(p);
      if (accepts_null(q.sql, p)) {
        info.optional.push_back(p);
      }
    }
  }
  read_header(q.sql, info);
  info.read_only = st.read_only;
  return info;
}

std::string parameter_list(const QueryInfo& q)
{
  if (q.parameters.empty()) {
    return "it takes no parameters";
  }
  std::string out;
  for (const auto& p : q.parameters) {
    const bool opt = std::find(q.optional.begin(), q.optional.end(), p) != q.optional.end();
    out += (out.empty() ? "" : ", ") + p + (opt ? " (optional)" : "");
  }
  return "its parameters: " + out;
}

} // namespace

namespace {

// Stored file text reads as text in `rfdb query`: a raw_zst column (zstd
// frames, with the row's bytes) is shown decompressed as `raw`, as before
// migration 0008; a dictionary (column dict) as its size; a sha256 column
// (32 bytes since migration 0010) as its 64 lower-case hex digits.
Result<void> show_stored_text(Database& db, Table& t)
{
  const auto index = [&t](std::string_view name) {
    const auto it = std::find(t.columns.begin(), t.columns.end(), name);
    return it == t.columns.end() ? -1 : static_cast<int>(it - t.columns.begin());
  };
  const int zst = index("raw_zst");
  const int bytes = index("bytes");
  const int dict = index("dict");
  const int sha256 = index("sha256");
  TextCodec codec(db);
  for (auto& row : t.rows) {
    if (zst >= 0 && bytes >= 0 && row[static_cast<std::size_t>(zst)] &&
        row[static_cast<std::size_t>(bytes)]) {
      const std::string& size = *row[static_cast<std::size_t>(bytes)];
      std::int64_t n = 0;
      std::from_chars(size.data(), size.data() + size.size(), n);
      std::string text;
      RFDB_TRY_ASSIGN(text, codec.decompress(*row[static_cast<std::size_t>(zst)], n));
      row[static_cast<std::size_t>(zst)] = std::move(text);
    }
    if (sha256 >= 0 && row[static_cast<std::size_t>(sha256)] &&
        row[static_cast<std::size_t>(sha256)]->size() == 32) {
      auto& digest = row[static_cast<std::size_t>(sha256)];
      digest = digest_hex(*digest);
    }
    if (dict >= 0 && row[static_cast<std::size_t>(dict)]) {
      row[static_cast<std::size_t>(dict)] =
          fmt::format("(zstd dictionary, {} bytes)", row[static_cast<std::size_t>(dict)]->size());
    }
  }
  if (zst >= 0 && bytes >= 0) {
    t.columns[static_cast<std::size_t>(zst)] = "raw";
  }
  return {};
}

} // namespace

Result<std::vector<QueryInfo>> named_queries()
{
  // Described against a fresh in-memory schema, so listing needs no database.
  auto mem = Database::open(":memory:");
  if (!mem) {
    return fail(std::move(mem).error());
  }
  std::vector<QueryInfo> out;
  for (const auto& q : sql::k_queries) {
    QueryInfo info;
    RFDB_TRY_ASSIGN(info, describe_query(*mem, q));
    if (info.read_only) {
      out.push_back(std::move(info));
    }
  }
  return out;
}

Result<Table> run_named_query(Database& db, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& params,
                              std::span<const domain::RuleParameter> rules)
{
  const auto it = std::find_if(sql::k_queries.begin(), sql::k_queries.end(),
                               [&](const sql::NamedQuery& q) { return q.name == name; });
  if (it == sql::k_queries.end()) {
    std::vector<QueryInfo> all;
    RFDB_TRY_ASSIGN(all, named_queries());
    std::string names;
    for (const auto& q : all) {
      names += (names.empty() ? "" : ", ") + q.name;
    }
    return fail(make_error(ErrorCode::usage, "no query named '" + name + "'")
                    .with_hint("the queries: " + names + " (rfdb query --list describes them)"));
  }
  QueryInfo info;
  RFDB_TRY_ASSIGN(info, describe_query(db, *it));
  if (!info.read_only) {
    return fail(
        make_error(ErrorCode::usage,
                   "query '" + name + "' writes to the database; rfdb query runs read-only queries only")
            .with_hint("rfdb query --list shows the read-only queries"));
  }
  for (const auto& [key, value] : params) {
    if (std::find(info.parameters.begin(), info.parameters.end(), key) == info.parameters.end()) {
      return fail(make_error(ErrorCode::usage, fmt::format("{} has no parameter '{}'", name, key))
                      .with_hint(parameter_list(info)));
    }
  }
  for (const auto& p : info.parameters) {
    const bool given =
        std::any_of(params.begin(), params.end(), [&](const auto& kv) { return kv.first == p; });
    const bool opt = std::find(info.optional.begin(), info.optional.end(), p) != info.optional.end();
    if (!given && !opt) {
      return fail(make_error(ErrorCode::usage, fmt::format("{} needs -p {}=VALUE", name, p))
                      .with_hint(parameter_list(info)));
    }
  }
  // PostgreSQL: the query's queries/postgresql/ text, inside a READ ONLY
  // transaction whatever the connection (SQLite decided it reads only).
  const bool pg = db.backend() == Backend::postgresql;
  if (pg) {
    RFDB_TRY(db.exec("BEGIN TRANSACTION READ ONLY", "begin"));
  }
  auto run = [&]() -> Result<Table> {
    auto prepared = db.prepare(it->sql, it->name);
    if (!prepared) {
      return fail(std::move(prepared).error());
    }
    Statement& s = *prepared;
    for (const auto& rule : info.rules) {
      const domain::RuleParameter* r = rule_named(rules, rule);
      if (r == nullptr) {
        return fail(make_error(ErrorCode::usage,
                               fmt::format("{} needs the rule {}, which was not given", name, rule)));
      }
      s.bind((":" + rule).c_str(), r->value);
    }
    for (const auto& [key, value] : params) {
      if (key == "sha256") {
        // Stored as its 32 bytes (migration 0010); given as 64 hex digits.
        s.bind_blob(":sha256", digest_bytes(value));
      } else {
        bind_literal(s, ":" + key, value);
      }
    }
    return collect(s);
  };
  auto result = run();
  if (pg) {
    RFDB_TRY(db.exec(result ? "COMMIT" : "ROLLBACK", "end"));
  }
  if (!result) {
    return fail(std::move(result).error());
  }
  Table t = std::move(*result);
  RFDB_TRY(show_stored_text(db, t));
  for (const auto& c : t.columns) {
    t.json.push_back(std::find(info.json_columns.begin(), info.json_columns.end(), c) !=
                     info.json_columns.end());
  }
  return t;
}

Result<std::vector<std::string>> runs_with_prefix(Database& db, const std::string& prefix)
{
  auto prepared = db.prepare(sql::k_runs_with_prefix, "runs_with_prefix");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":prefix", prefix);
  Table t;
  RFDB_TRY_ASSIGN(t, collect(s));
  std::vector<std::string> out;
  for (const auto& row : t.rows) {
    out.push_back(row[0].value_or(""));
  }
  return out;
}

} // namespace rfdb::store
