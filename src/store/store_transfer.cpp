// Store-to-store transfer (`rfdb copy`'s SQL side): the schema from the catalog, rows copied by declared type
// (see store_transfer.hpp).
#include "store/store_transfer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace rfdb::store {

namespace {

// The catalog queries, per dialect. They take no identifier from outside:
// table names come from the catalog itself and only ever reach SQL quoted.
constexpr std::string_view k_sqlite_tables = R"sql(
SELECT name FROM sqlite_master
WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
ORDER BY rowid)sql";
constexpr std::string_view k_sqlite_foreign_keys = R"sql(
SELECT m.name AS child, f."table" AS parent, f."from" AS col
FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f
WHERE m.type = 'table')sql";
constexpr std::string_view k_sqlite_columns = R"sql(
SELECT name, type, pk FROM pragma_table_info(:table) ORDER BY cid)sql";

// PostgreSQL: the tables of the connection's schema (search_path), oldest first.
constexpr std::string_view k_pg_tables = R"sql(
SELECT c.relname AS name FROM pg_class AS c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
ORDER BY c.oid)sql";
constexpr std::string_view k_pg_foreign_keys = R"sql(
SELECT c.relname AS child, p.relname AS parent, a.attname AS col
FROM pg_constraint AS k
JOIN pg_class AS c ON c.oid = k.conrelid
JOIN pg_class AS p ON p.oid = k.confrelid
JOIN pg_attribute AS a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace)sql";
constexpr std::string_view k_pg_columns = R"sql(
SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
       CASE WHEN EXISTS (SELECT 1 FROM pg_index AS i
                         WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey))
            THEN 1 ELSE 0 END AS pk
FROM pg_attribute AS a
JOIN pg_class AS c ON c.oid = a.attrelid
WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = :table
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum)sql";
// Identity and serial columns, for after_bulk_copy.
constexpr std::string_view k_pg_sequences = R"sql(
SELECT c.relname AS tbl, a.attname AS col,
       pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS seq
FROM pg_attribute AS a
JOIN pg_class AS c ON c.oid = a.attrelid
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
  AND a.attnum > 0 AND NOT a.attisdropped
  AND pg_get_serial_sequence(quote_ident(c.relname), a.attname) IS NOT NULL
ORDER BY c.oid, a.attnum)sql";

// How a column's values are read and bound, from its declared type (SQLite's
// affinity rules, plus PostgreSQL's bytea and boolean).
enum class Kind { integer, real, text, blob, boolean };

struct Column {
  std::string name;
  Kind kind = Kind::text;
  bool primary_key = false;
};

struct TableSchema {
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> self_references; // columns referencing this table's own key
};

struct Schema {
  std::vector<TableSchema> tables; // copy order
};

std::string upper(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

Kind kind_of(const std::string& declared)
{
  const std::string t = upper(declared);
  const auto has = [&t](const char* part) { return t.find(part) != std::string::npos; };
  if (has("BOOL")) {
    return Kind::boolean;
  }
  if (has("INT")) {
    return Kind::integer;
  }
  if (has("CHAR") || has("CLOB") || has("TEXT")) {
    return Kind::text;
  }
  if (has("BLOB") || has("BYTEA")) {
    return Kind::blob;
  }
  if (has("REAL") || has("FLOA") || has("DOUB") || has("NUMERIC") || has("DECIMAL")) {
    return Kind::real;
  }
  return Kind::text;
}

// "name" with embedded quotes doubled: an SQL identifier in both dialects.
std::string quoted(const std::string& name)
{
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

// The store's own bookkeeping, never copied: each database has its own.
bool internal_table(const std::string& name)
{
  return name.rfind("sqlite_", 0) == 0 || name.rfind("rfdb_", 0) == 0;
}

Result<std::vector<std::string>> strings(Database& db, std::string_view sql, std::string_view name)
{
  std::vector<std::string> out;
  auto prepared = db.prepare(sql, name);
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  RFDB_TRY(for_each_row(*prepared, [&out](const Statement& s) { out.push_back(s.get_text(0)); }));
  return out;
}

// Kahn's algorithm over the foreign keys, taking the earliest-created ready
// table each time, so a schema whose tables were created parents first keeps
// its order.
Result<std::vector<std::string>> parents_first(const std::vector<std::string>& tables,
                                               const std::multimap<std::string, std::string>& parents_of)
{
  std::vector<std::string> order;
  std::set<std::string> done;
  while (order.size() < tables.size()) {
    bool progressed = false;
    for (const auto& t : tables) {
      if (done.count(t) != 0) {
        continue;
      }
      bool ready = true;
      const auto [lo, hi] = parents_of.equal_range(t);
      for (auto it = lo; it != hi; ++it) {
        const std::string& parent = it->second;
        const bool outside = std::find(tables.begin(), tables.end(), parent) == tables.end();
        if (parent != t && done.count(parent) == 0 && !outside) {
          ready = false;
        }
      }
      if (ready) {
        order.push_back(t);
        done.insert(t);
        progressed = true;
        break;
      }
    }
    if (!progressed) {
      return fail(
          make_error(ErrorCode::internal, "the tables' foreign keys form a cycle; no copy order exists"));
    }
  }
  return order;
}

Result<Schema> read_schema(Database& db)
{
  const bool pg = is_postgres(db);
  std::vector<std::string> all;
  RFDB_TRY_ASSIGN(all, strings(db, pg ? k_pg_tables : k_sqlite_tables, "copy_tables"));
  std::vector<std::string> tables;
  std::copy_if(all.begin(), all.end(), std::back_inserter(tables),
               [](const std::string& t) { return !internal_table(t); });

  std::multimap<std::string, std::string> parents_of;
  std::map<std::string, std::vector<std::string>> self_refs;
  {
    auto prepared = db.prepare(pg ? k_pg_foreign_keys : k_sqlite_foreign_keys, "copy_foreign_keys");
    if (!prepared) {
      return fail(std::move(prepared).error());
    }
    RFDB_TRY(for_each_row(*prepared, [&](const Statement& s) {
      const std::string child = s.get_text(0);
      const std::string parent = s.get_text(1);
      parents_of.emplace(child, parent);
      if (child == parent) {
        self_refs[child].push_back(s.get_text(2));
      }
    }));
  }
  std::vector<std::string> order;
  RFDB_TRY_ASSIGN(order, parents_first(tables, parents_of));

  Schema schema;
  auto columns = db.prepare(pg ? k_pg_columns : k_sqlite_columns, "copy_columns");
  if (!columns) {
    return fail(std::move(columns).error());
  }
  for (const auto& t : order) {
    TableSchema ts{t, {}, self_refs[t]};
    columns->bind(":table", t);
    RFDB_TRY(for_each_row(*columns, [&ts](const Statement& s) {
      ts.columns.push_back(Column{s.get_text(0), kind_of(s.get_text(1)), s.get_int(2) != 0});
    }));
    schema.tables.push_back(std::move(ts));
  }
  return schema;
}

Result<std::int64_t> count_rows(Database& db, const std::string& table)
{
  auto prepared = db.prepare(fmt::format("SELECT count(*) FROM {}", quoted(table)), "copy_count");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  std::int64_t n = 0;
  RFDB_TRY(for_each_row(*prepared, [&n](const Statement& s) { n = s.get_int(0); }));
  return n;
}

// Bind column `i` of the current source row to `:p<i>` of `insert`.
void bind_value(Statement& insert, const std::string& param, const Statement& row, int i, const Column& c)
{
  const char* p = param.c_str();
  if (row.is_null(i)) {
    insert.bind(p, std::nullopt);
    return;
  }
  switch (c.kind) {
  case Kind::integer:
    insert.bind(p, row.get_int(i));
    break;
  case Kind::real:
    insert.bind(p, row.get_double(i));
    break;
  case Kind::blob:
    insert.bind_blob(p, row.get_blob(c.name.c_str()));
    break;
  case Kind::boolean: {
    const std::string v = row.get_text(i);
    insert.bind(p, v == "t" || v == "true" || v == "1");
    break;
  }
  case Kind::text:
    insert.bind(p, row.get_text(i));
    break;
  }
}

// Copy one table's rows; self-referencing columns are set afterwards.
Result<void> copy_table(Database& src, Database& dst, const TableSchema& t)
{
  std::vector<std::string> names;
  std::vector<std::string> params;
  std::vector<std::string> key;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    names.push_back(quoted(t.columns[i].name));
    params.push_back(fmt::format(":p{}", i));
    if (t.columns[i].primary_key) {
      key.push_back(quoted(t.columns[i].name));
    }
  }
  std::optional<std::size_t> key_col;
  if (!t.self_references.empty()) {
    const auto pk =
        std::find_if(t.columns.begin(), t.columns.end(), [](const Column& c) { return c.primary_key; });
    if (key.size() != 1 || pk == t.columns.end()) {
      return fail(
          make_error(ErrorCode::internal,
                     fmt::format("table {} references itself but has no one-column primary key", t.name)));
    }
    key_col = static_cast<std::size_t>(pk - t.columns.begin());
  }
  const std::string select =
      fmt::format("SELECT {} FROM {}{}", fmt::join(names, ", "), quoted(t.name),
                  key.empty() ? "" : fmt::format(" ORDER BY {}", fmt::join(key, ", ")));
  // OVERRIDING SYSTEM VALUE: keep the source's ids even in a GENERATED ALWAYS identity column.
  const std::string insert_sql =
      fmt::format("INSERT INTO {} ({}){} VALUES ({})", quoted(t.name), fmt::join(names, ", "),
                  is_postgres(dst) ? " OVERRIDING SYSTEM VALUE" : "", fmt::join(params, ", "));
  // Errors reading the source name it (the caller names the destination).
  const std::string reading = "reading " + display_name(src.path());
  auto rows = src.prepare(select, "copy_select_" + t.name);
  if (!rows) {
    return fail(std::move(rows).error().with_context(reading));
  }
  auto insert = dst.prepare(insert_sql, "copy_insert_" + t.name);
  if (!insert) {
    return fail(std::move(insert).error());
  }
  // (key, column index, value) of each self reference, set after every row is in.
  struct Link {
    std::int64_t key;
    std::size_t col;
    std::int64_t target;
  };
  std::vector<Link> links;
  bool write_failed = false;
  auto copied = for_each_row(*rows, [&](const Statement& row) -> Result<void> {
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      const Column& c = t.columns[i];
      const int idx = static_cast<int>(i);
      const bool self =
          std::find(t.self_references.begin(), t.self_references.end(), c.name) != t.self_references.end();
      if (self && !row.is_null(idx)) {
        links.push_back(Link{row.get_int(static_cast<int>(*key_col)), i, row.get_int(idx)});
        insert->bind(params[i].c_str(), std::nullopt);
        continue;
      }
      bind_value(*insert, params[i], row, idx, c);
    }
    auto done = insert->exec();
    if (!done) {
      write_failed = true;
      return fail(std::move(done).error());
    }
    return {};
  });
  if (!copied) {
    return write_failed ? copied : fail(std::move(copied).error().with_context(reading));
  }
  std::map<std::size_t, Statement> updates; // per self-referencing column
  for (const auto& link : links) {
    auto it = updates.find(link.col);
    if (it == updates.end()) {
      auto update = dst.prepare(fmt::format("UPDATE {} SET {} = :target WHERE {} = :key", quoted(t.name),
                                            quoted(t.columns[link.col].name), key.front()),
                                "copy_link_" + t.name);
      if (!update) {
        return fail(std::move(update).error());
      }
      it = updates.emplace(link.col, std::move(*update)).first;
    }
    it->second.bind(":target", link.target).bind(":key", link.key);
    RFDB_TRY(it->second.exec());
  }
  return {};
}

} // namespace

bool CopyReport::counts_match() const
{
  return std::all_of(tables.begin(), tables.end(),
                     [](const TableCount& t) { return t.source_rows == t.dest_rows; });
}

bool is_postgres(const Database& db)
{
  return db.backend() == Backend::postgresql;
}

Result<std::vector<std::string>> copy_order(Database& db)
{
  Schema schema;
  RFDB_TRY_ASSIGN(schema, read_schema(db));
  std::vector<std::string> out;
  for (const auto& t : schema.tables) {
    out.push_back(t.name);
  }
  return out;
}

Result<std::vector<TableCount>> table_counts(Database& db)
{
  std::vector<std::string> tables;
  RFDB_TRY_ASSIGN(tables, copy_order(db));
  std::vector<TableCount> out;
  for (const auto& t : tables) {
    std::int64_t n = 0;
    RFDB_TRY_ASSIGN(n, count_rows(db, t));
    out.push_back(TableCount{t, n, 0});
  }
  return out;
}

namespace {
std::function<Result<void>()> g_committed_hook; // set_copy_committed_hook

Result<void> run_copy_committed_hook()
{
  return g_committed_hook ? g_committed_hook() : Result<void>{};
}
} // namespace

void set_copy_committed_hook(std::function<Result<void>()> hook)
{
  g_committed_hook = std::move(hook);
}

Result<CopyState> read_copy_state(Database& db)
{
  const bool pg = is_postgres(db);
  std::vector<std::string> found;
  RFDB_TRY_ASSIGN(found,
                  strings(db,
                          pg ? "SELECT c.relname FROM pg_class AS c WHERE c.relname = 'rfdb_meta' "
                               "AND c.relnamespace = current_schema()::regnamespace"
                             : "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'rfdb_meta'",
                          "copy_meta_exists"));
  CopyState out;
  if (found.empty()) {
    return out;
  }
  auto prepared = db.prepare("SELECT key, value FROM rfdb_meta WHERE key IN ('copy_state', 'copy_from')",
                             "copy_state_read");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  RFDB_TRY(for_each_row(*prepared, [&out](const Statement& s) {
    (s.get_text(0) == "copy_state" ? out.state : out.from) = s.get_text(1);
  }));
  return out;
}

Result<void> write_copy_state(Database& db, std::string_view state, const std::string& from)
{
  if (!is_postgres(db)) {
    RFDB_TRY(db.exec("CREATE TABLE IF NOT EXISTS rfdb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                     "copy_meta_create"));
  }
  auto upsert = db.prepare("INSERT INTO rfdb_meta (key, value) VALUES (:key, :value) "
                           "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           "copy_state_write");
  if (!upsert) {
    return fail(std::move(upsert).error());
  }
  upsert->bind(":key", std::string("copy_state")).bind(":value", std::string(state));
  RFDB_TRY(upsert->exec());
  upsert->bind(":key", std::string("copy_from")).bind(":value", from);
  RFDB_TRY(upsert->exec());
  return {};
}

Result<CopyReport> compare_counts(Database& src, Database& dst)
{
  std::vector<std::string> tables;
  RFDB_TRY_ASSIGN(tables, copy_order(src));
  CopyReport report;
  for (const auto& t : tables) {
    TableCount c{t, 0, 0};
    RFDB_TRY_ASSIGN(c.source_rows, count_rows(src, t));
    RFDB_TRY_ASSIGN(c.dest_rows, count_rows(dst, t));
    report.tables.push_back(std::move(c));
  }
  return report;
}

Result<CopyReport> copy_store(Database& src, Database& dst)
{
  if (src.schema_version() != dst.schema_version()) {
    return fail(make_error(ErrorCode::invalid_input,
                           fmt::format("the source is at schema version {}, the destination at {}",
                                       src.schema_version(), dst.schema_version()))
                    .with_hint("bring both to this rfdb's schema with `rfdb migrate` first"));
  }
  Schema from;
  RFDB_TRY_ASSIGN(from, read_schema(src));
  Schema to;
  RFDB_TRY_ASSIGN(to, read_schema(dst));
  for (const auto& t : from.tables) {
    const auto there = std::find_if(to.tables.begin(), to.tables.end(),
                                    [&t](const TableSchema& d) { return d.name == t.name; });
    if (there == to.tables.end()) {
      return fail(
          make_error(ErrorCode::invalid_input, fmt::format("the destination has no table {}", t.name)));
    }
    for (const auto& c : t.columns) {
      if (std::none_of(there->columns.begin(), there->columns.end(),
                       [&c](const Column& d) { return d.name == c.name; })) {
        return fail(make_error(ErrorCode::invalid_input,
                               fmt::format("the destination's table {} has no column {}", t.name, c.name)));
      }
    }
  }

  auto tx = dst.begin_immediate();
  if (!tx) {
    return fail(std::move(tx).error());
  }
  // Checked inside the transaction: a writer that got in first is seen.
  std::vector<std::string> held;
  for (const auto& t : to.tables) {
    std::int64_t n = 0;
    RFDB_TRY_ASSIGN(n, count_rows(dst, t.name));
    if (n > 0) {
      held.push_back(fmt::format("{}: {}", t.name, n));
    }
  }
  if (!held.empty()) {
    return fail(make_error(ErrorCode::invalid_input,
                           fmt::format("the destination is not empty ({})", fmt::join(held, ", ")))
                    .with_hint("copy into a new database: rfdb copy never merges two stores"));
  }
  for (const auto& t : from.tables) {
    RFDB_TRY(copy_table(src, dst, t));
  }
  RFDB_TRY(after_bulk_copy(dst));
  RFDB_TRY(write_copy_state(dst, k_copy_unverified, display_name(src.path())));
  RFDB_TRY(tx->commit());

  CopyReport report;
  for (const auto& t : from.tables) {
    TableCount c{t.name, 0, 0};
    RFDB_TRY_ASSIGN(c.source_rows, count_rows(src, t.name));
    RFDB_TRY_ASSIGN(c.dest_rows, count_rows(dst, t.name));
    report.tables.push_back(std::move(c));
  }
  return report;
}

Result<void> after_bulk_copy(Database& db)
{
  if (!is_postgres(db)) {
    return {}; // SQLite: a new INTEGER PRIMARY KEY is max(rowid) + 1 already
  }
  struct Sequence {
    std::string table;
    std::string column;
    std::string sequence;
  };
  std::vector<Sequence> sequences;
  {
    auto prepared = db.prepare(k_pg_sequences, "copy_sequences");
    if (!prepared) {
      return fail(std::move(prepared).error());
    }
    RFDB_TRY(for_each_row(*prepared, [&sequences](const Statement& s) {
      sequences.push_back(Sequence{s.get_text(0), s.get_text(1), s.get_text(2)});
    }));
  }
  for (const auto& q : sequences) {
    // The next value is max + 1 (1 for an empty table).
    auto set = db.prepare(
        fmt::format("SELECT setval(CAST(:seq AS regclass), (SELECT COALESCE(MAX({}), 0) + 1 FROM {}), false)",
                    quoted(q.column), quoted(q.table)),
        "copy_setval");
    if (!set) {
      return fail(std::move(set).error());
    }
    set->bind(":seq", q.sequence);
    RFDB_TRY(for_each_row(*set, [](const Statement&) {}));
  }
  return {};
}

// ---- rfdb copy: refusals, the copy, its verification ------------------------

namespace {

namespace fs = std::filesystem;

bool is_url(const std::string& db)
{
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

// A URL with its password (user:PASSWORD@) masked, for printing.
std::string shown(const std::string& db)
{
  if (!is_url(db)) {
    return db;
  }
  const auto scheme = db.find("://") + 3;
  const auto at = db.find('@', scheme);
  const auto colon = db.find(':', scheme);
  if (at == std::string::npos || colon == std::string::npos || colon > at) {
    return db;
  }
  return db.substr(0, colon + 1) + "***" + db.substr(at);
}

// The hint of a destination that cannot be opened or created.
constexpr const char* k_to_hint =
    "--to names a new SQLite file in an existing directory, or an empty PostgreSQL database";

// An existing SQLite destination must hold no data: looked at read-only, so a
// refused file stays byte for byte as it was. (A PostgreSQL destination is
// checked inside the copy's transaction only; that check covers both.)
Result<void> refuse_non_empty_file(const std::string& to)
{
  std::error_code ec;
  if (is_url(to) || to == ":memory:" || !fs::exists(to, ec)) {
    return {};
  }
  auto probe = Database::open_read_only(to);
  if (!probe) {
    if (probe.error().code == ErrorCode::not_found) {
      return {}; // an empty file: a new database
    }
    Error e = std::move(probe).error().with_context(to);
    if (e.code == ErrorCode::io) {
      e = std::move(e).with_hint(k_to_hint);
    }
    return fail(std::move(e));
  }
  std::vector<TableCount> counts;
  RFDB_TRY_ASSIGN(counts, table_counts(*probe));
  std::string held;
  for (const auto& c : counts) {
    if (c.source_rows > 0) {
      held += fmt::format("{}{}: {}", held.empty() ? "" : ", ", c.table, c.source_rows);
    }
  }
  if (!held.empty()) {
    return fail(make_error(ErrorCode::invalid_input, fmt::format("the destination is not empty ({})", held))
                    .with_context(to)
                    .with_hint("copy into a new database: rfdb copy never merges two stores"));
  }
  return {};
}

// The copy state recorded in an existing destination (see copy_store);
// empty when there is none or the destination cannot be read (the copy
// itself then reports why).
CopyState recorded_copy_state(const std::string& to)
{
  std::error_code ec;
  if (to == ":memory:" || (!is_url(to) && !fs::exists(to, ec))) {
    return {};
  }
  auto db = is_url(to) ? Database::open(to) : Database::open_read_only(to);
  if (!db) {
    return {};
  }
  auto state = read_copy_state(*db);
  return state ? *state : CopyState{};
}

// Refuse a destination whose recorded state is not "nothing" or a copy of
// this source committed but not verified (which is verified again).
Result<void> refuse_recorded(const CopyState& recorded, const TransferOutcome& out)
{
  if (recorded.state == k_copy_verified) {
    return fail(make_error(ErrorCode::invalid_input,
                           fmt::format("the destination is a verified copy of {} already", recorded.from))
                    .with_context(out.to)
                    .with_hint("it is a verified copy already: use it as it is (remove it first to copy "
                               "into it again)"));
  }
  if (recorded.state == k_copy_failed) {
    return fail(
        make_error(ErrorCode::invalid_input, fmt::format("the destination holds a copy of {} in state '{}'",
                                                         recorded.from, recorded.state))
            .with_context(out.to)
            .with_hint("its verification failed: remove it and copy again"));
  }
  if (recorded.state == k_copy_unverified && !out.resumed) {
    return fail(
        make_error(ErrorCode::invalid_input, fmt::format("the destination holds a copy of {} in state '{}'",
                                                         recorded.from, recorded.state))
            .with_context(out.to)
            .with_hint(fmt::format("re-run `rfdb copy --from {} --to ...` to verify it, or remove "
                                   "it and copy again",
                                   recorded.from)));
  }
  return {};
}

} // namespace

Result<TransferOutcome>
transfer_store(const std::string& from, const std::string& to, const CopyVerifier& verify,
               const std::function<void(TransferStep, const TransferOutcome&)>& on_step)
{
  const auto announce = [&on_step](TransferStep step, const TransferOutcome& so_far) {
    if (on_step) {
      on_step(step, so_far);
    }
  };
  std::error_code ec;
  if (from == to || (!is_url(from) && fs::exists(to, ec) && fs::equivalent(from, to, ec))) {
    return fail(make_error(ErrorCode::usage, "--from and --to name the same database")
                    .with_hint("the destination must be a new, empty database"));
  }
  TransferOutcome out;
  out.from = shown(from);
  out.to = shown(to);
  auto src = Database::open_read_only(from);
  if (!src) {
    Error e = std::move(src).error().with_context(out.from);
    if (e.code == ErrorCode::not_found || e.code == ErrorCode::io) {
      e = std::move(e).with_hint(
          "--from names an existing rfdb database: a SQLite file or a postgresql:// URL");
    }
    return fail(std::move(e));
  }
  // A destination a copy was committed into: a copy killed before its
  // verification is verified now; any other recorded state is refused.
  const CopyState recorded = recorded_copy_state(to);
  out.source_name = display_name(src->path());
  out.resumed = recorded.state == k_copy_unverified && recorded.from == out.source_name;
  RFDB_TRY(refuse_recorded(recorded, out));
  if (out.resumed) {
    announce(TransferStep::resuming, out);
  } else {
    RFDB_TRY(refuse_non_empty_file(to));
  }
  // A SQLite file created here is removed again when the copy fails.
  const bool new_file = !is_url(to) && to != ":memory:" && !fs::exists(to, ec);
  Result<CopyReport> report = [&]() -> Result<CopyReport> {
    auto dst = Database::open(to);
    if (!dst) {
      Error e = std::move(dst).error();
      if (e.code == ErrorCode::not_found || e.code == ErrorCode::io) {
        e = std::move(e).with_hint(k_to_hint);
      }
      return fail(std::move(e));
    }
    announce(TransferStep::copying, out);
    return out.resumed ? compare_counts(*src, *dst) : copy_store(*src, *dst);
  }();
  if (!report) {
    if (new_file) {
      for (const char* suffix : {"", "-wal", "-shm"}) {
        fs::remove(to + suffix, ec);
      }
    }
    return fail(std::move(report).error().with_context("into " + out.to));
  }
  out.report = std::move(*report);

  RFDB_TRY(run_copy_committed_hook());

  // Verify: the copy's own check, and the priors of both, byte for byte.
  RFDB_TRY_ASSIGN(out.check_ok, verify.check(to));
  std::string src_priors;
  RFDB_TRY_ASSIGN(src_priors, verify.priors_json(from));
  std::string dst_priors;
  RFDB_TRY_ASSIGN(dst_priors, verify.priors_json(to));
  out.priors_identical = src_priors == dst_priors;
  {
    auto dst = Database::open(to);
    if (!dst) {
      return fail(std::move(dst).error().with_context("recording the verification in " + out.to));
    }
    auto tx = dst->begin_immediate();
    if (!tx) {
      return fail(std::move(tx).error());
    }
    RFDB_TRY(write_copy_state(*dst, out.ok() ? k_copy_verified : k_copy_failed, out.source_name));
    RFDB_TRY(tx->commit());
  }
  return out;
}

} // namespace rfdb::store
