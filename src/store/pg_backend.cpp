// The PostgreSQL backend: libpq connections, prepared statements and the
// advisory-locked migrations (see pg_backend.hpp).
#include "store/pg_backend.hpp"

#include "rfdb_sql.hpp"

#include "store/pg_libpq.hpp"
#include "util/hex.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <libpq-fe.h>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace rfdb::store::detail {

namespace {

// Type OIDs of pg_type (catalog/pg_type_d.h is a server header).
constexpr Oid k_bool_oid = 16;
constexpr Oid k_bytea_oid = 17;
constexpr Oid k_int8_oid = 20;
constexpr Oid k_int2_oid = 21;
constexpr Oid k_int4_oid = 23;
constexpr Oid k_oid_oid = 26;
constexpr Oid k_float4_oid = 700;
constexpr Oid k_float8_oid = 701;
constexpr Oid k_numeric_oid = 1700;

// The libpq functions. connect() has checked that libpq loaded before any
// connection exists, and every call below works on a connection or a result.
const Libpq& pq()
{
  return *libpq();
}

struct ConnDeleter {
  void operator()(PGconn* c) const { pq().PQfinish(c); }
};
struct ResultDeleter {
  void operator()(PGresult* r) const { pq().PQclear(r); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnDeleter>;
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// An rfdb::Error from a failed result (or the connection's last error):
// the server's primary message and SQLSTATE; 40001 (serialization failure)
// and 40P01 (deadlock) are ErrorCode::retry, 53100 (disk full) disk_full.
Error pg_error(PGconn* conn, const PGresult* res, std::string_view what)
{
  const char* state = res != nullptr ? pq().PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  const char* primary = res != nullptr ? pq().PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = primary != nullptr ? primary : std::string(util::trim(pq().PQerrorMessage(conn)));
  if (message.empty() && res != nullptr) {
    message = pq().PQresStatus(pq().PQresultStatus(res));
  }
  Error err =
      make_error(ErrorCode::db, state != nullptr ? fmt::format("{} (sqlstate {})", message, state) : message);
  if (state != nullptr && (std::strcmp(state, "40001") == 0 || std::strcmp(state, "40P01") == 0)) {
    err.code = ErrorCode::retry;
  }
  if (state != nullptr && std::strcmp(state, "53100") == 0) { // disk_full
    err.code = ErrorCode::disk_full;
    err.hint = "the PostgreSQL server's disk is full: free space there, then run the command again";
  }
  return std::move(err).with_context(std::string(what));
}

bool ok_status(const PGresult* res)
{
  const auto status = pq().PQresultStatus(res);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY;
}

// Run `sql` (one or more statements, no parameters).
Result<ResultPtr> run(PGconn* conn, std::string_view sql, std::string_view what)
{
  ResultPtr res(pq().PQexec(conn, std::string(sql).c_str()));
  if (!res || !ok_status(res.get())) {
    return fail(pg_error(conn, res.get(), what));
  }
  return res;
}

// Run one statement with text parameters.
Result<ResultPtr> run_params(PGconn* conn, const char* sql, const std::vector<std::string>& params,
                             std::string_view what)
{
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) {
    values.push_back(p.c_str());
  }
  ResultPtr res(pq().PQexecParams(conn, sql, static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                                  nullptr, 0));
  if (!res || !ok_status(res.get())) {
    return fail(pg_error(conn, res.get(), what));
  }
  return res;
}

std::string hex_bytea(std::string_view bytes)
{
  return "\\x" + util::hex_encode(bytes);
}

// bytea's hex output ("\x…") as bytes; other text (never bytea) as is.
std::string unhex_bytea(std::string_view text)
{
  if (!text.starts_with("\\x")) {
    return std::string(text);
  }
  return util::hex_decode(text.substr(2)).value_or(std::string(text));
}

// One statement prepared on one connection: its server-side name, the
// parameter names of $1…$n and the result columns.
struct Prepared {
  std::string statement;
  std::vector<std::string> params;
  std::vector<std::string> columns;
  std::vector<Oid> types;
};

// A connection and what it remembers between statements.
struct Connection {
  ConnPtr conn;
  std::int64_t last_id = 0; // first column of the last exec's first returned row
  std::unordered_map<std::string, std::shared_ptr<const Prepared>> prepared; // by $n text
  int next_statement = 0;
};

class PgStatement final : public StatementImpl {
public:
  PgStatement(Connection& conn, std::shared_ptr<const Prepared> prepared, std::string name)
      : m_conn(&conn), m_prep(std::move(prepared)), m_name(std::move(name)), m_values(m_prep->params.size())
  {
  }

  Result<void> bind_null(const char* name) override { return set(name, std::nullopt); }
  Result<void> bind_int(const char* name, std::int64_t value) override
  {
    return set(name, std::to_string(value));
  }
  Result<void> bind_double(const char* name, double value) override
  {
    return set(name, fmt::format("{}", value)); // shortest text that reads back to `value`
  }
  // Error (invalid_input): text holding a NUL character (U+0000, e.g. a JSON
  // "\u0000"). libpq passes text as C strings, so PostgreSQL would keep only
  // what comes before it; refusing keeps the database as it was.
  Result<void> bind_text(const char* name, std::string_view value) override
  {
    if (const auto nul = value.find('\0'); nul != std::string_view::npos) {
      return fail(
          make_error(ErrorCode::invalid_input,
                     fmt::format("text with a NUL character (U+0000) at byte {} cannot be stored in "
                                 "PostgreSQL, which would cut it there",
                                 nul))
              .with_context(fmt::format("bind {}", name))
              .with_context(fmt::format("query {}", m_name))
              .with_hint("remove the \\u0000 from the input, or keep this evidence in a SQLite database"));
    }
    return set(name, std::string(value));
  }
  Result<void> bind_blob(const char* name, std::string_view bytes) override
  {
    return set(name, hex_bytea(bytes));
  }

  Result<int> exec() override
  {
    auto r = execute();
    if (!r) {
      reset();
      return fail(std::move(r).error());
    }
    const char* tuples = pq().PQcmdTuples(m_result.get());
    const int changed = tuples != nullptr && *tuples != '\0' ? std::atoi(tuples) : 0;
    if (pq().PQresultStatus(m_result.get()) == PGRES_TUPLES_OK && pq().PQntuples(m_result.get()) > 0 &&
        pq().PQnfields(m_result.get()) > 0 && pq().PQgetisnull(m_result.get(), 0, 0) == 0) {
      m_conn->last_id = std::strtoll(pq().PQgetvalue(m_result.get(), 0, 0), nullptr, 10);
    }
    reset();
    return changed;
  }

  Result<bool> step() override
  {
    m_converted.clear();
    if (!m_result) {
      auto r = execute();
      if (!r) {
        reset();
        return fail(std::move(r).error());
      }
      m_row = 0;
    } else {
      ++m_row;
    }
    if (m_row < pq().PQntuples(m_result.get())) {
      return true;
    }
    reset();
    return false;
  }

  void reset() noexcept override
  {
    m_result.reset();
    m_row = -1;
    m_converted.clear();
    std::fill(m_values.begin(), m_values.end(), std::nullopt);
  }

  [[nodiscard]] bool is_null(int col) const override { return pq().PQgetisnull(current(), m_row, col) != 0; }
  [[nodiscard]] bool is_number(int col) const override
  {
    if (is_null(col)) {
      return false;
    }
    switch (type(col)) {
    case k_bool_oid:
    case k_int2_oid:
    case k_int4_oid:
    case k_int8_oid:
    case k_oid_oid:
    case k_float4_oid:
    case k_float8_oid:
    case k_numeric_oid:
      return true;
    default:
      return false;
    }
  }
  [[nodiscard]] std::int64_t get_int(int col) const override
  {
    if (is_null(col)) {
      return 0;
    }
    const char* v = value(col);
    switch (type(col)) {
    case k_bool_oid:
      return *v == 't' ? 1 : 0;
    case k_float4_oid:
    case k_float8_oid:
    case k_numeric_oid:
      return static_cast<std::int64_t>(std::strtod(v, nullptr));
    default:
      return std::strtoll(v, nullptr, 10);
    }
  }
  [[nodiscard]] double get_double(int col) const override
  {
    if (is_null(col)) {
      return 0.0;
    }
    const char* v = value(col);
    return type(col) == k_bool_oid ? (*v == 't' ? 1.0 : 0.0) : std::strtod(v, nullptr);
  }
  [[nodiscard]] std::string get_text(int col) const override
  {
    if (is_null(col)) {
      return {};
    }
    const char* v = value(col);
    switch (type(col)) {
    case k_bool_oid:
      return *v == 't' ? "1" : "0";
    case k_float4_oid:
    case k_float8_oid:
      return sqlite_real_text(std::strtod(v, nullptr));
    case k_numeric_oid:
      return std::strpbrk(v, ".eEN") != nullptr ? sqlite_real_text(std::strtod(v, nullptr)) : std::string(v);
    case k_bytea_oid:
      return unhex_bytea(v);
    default:
      return {v, static_cast<std::size_t>(pq().PQgetlength(current(), m_row, col))};
    }
  }
  [[nodiscard]] std::string_view get_text_view(int col) const override
  {
    if (is_null(col)) {
      return {};
    }
    switch (type(col)) {
    case k_bool_oid:
    case k_float4_oid:
    case k_float8_oid:
    case k_numeric_oid:
    case k_bytea_oid:
      // Converted to SQLite's text form: kept until the next step or reset.
      return *m_converted.emplace_back(std::make_unique<std::string>(get_text(col)));
    default:
      return {value(col), static_cast<std::size_t>(pq().PQgetlength(current(), m_row, col))};
    }
  }
  [[nodiscard]] std::string get_blob(int col) const override
  {
    if (is_null(col)) {
      return {};
    }
    return type(col) == k_bytea_oid ? unhex_bytea(value(col)) : get_text(col);
  }
  [[nodiscard]] int column_count() const override { return static_cast<int>(m_prep->columns.size()); }
  [[nodiscard]] std::string column_name(int col) const override
  {
    return m_prep->columns.at(static_cast<std::size_t>(col));
  }
  [[nodiscard]] int index_of(const char* col) const override
  {
    const auto it = std::find(m_prep->columns.begin(), m_prep->columns.end(), col);
    if (it == m_prep->columns.end()) {
      throw std::out_of_range(fmt::format("query {}: no result column named '{}'", m_name, col));
    }
    return static_cast<int>(it - m_prep->columns.begin());
  }

private:
  Result<void> set(const char* name, std::optional<std::string> value)
  {
    std::string_view key(name);
    if (!key.empty() && (key.front() == ':' || key.front() == '@' || key.front() == '$')) {
      key.remove_prefix(1);
    }
    const auto it = std::find(m_prep->params.begin(), m_prep->params.end(), key);
    if (it == m_prep->params.end()) {
      return fail(make_error(ErrorCode::db, fmt::format("no parameter named '{}'", key))
                      .with_context(fmt::format("bind {}", name))
                      .with_context(fmt::format("query {}", m_name)));
    }
    m_values[static_cast<std::size_t>(it - m_prep->params.begin())] = std::move(value);
    return {};
  }

  Result<void> execute()
  {
    std::vector<const char*> values;
    values.reserve(m_values.size());
    for (const auto& v : m_values) {
      values.push_back(v ? v->c_str() : nullptr);
    }
    PGconn* conn = m_conn->conn.get();
    m_result.reset(pq().PQexecPrepared(conn, m_prep->statement.c_str(), static_cast<int>(values.size()),
                                       values.data(), nullptr, nullptr, 0));
    if (!m_result || !ok_status(m_result.get())) {
      Error err = pg_error(conn, m_result.get(), fmt::format("query {}", m_name));
      m_result.reset();
      return fail(std::move(err));
    }
    return {};
  }

  [[nodiscard]] const PGresult* current() const
  {
    if (!m_result || m_row < 0) {
      throw std::logic_error(fmt::format("query {}: no current row", m_name));
    }
    return m_result.get();
  }
  [[nodiscard]] const char* value(int col) const { return pq().PQgetvalue(current(), m_row, col); }
  [[nodiscard]] Oid type(int col) const { return m_prep->types.at(static_cast<std::size_t>(col)); }

  Connection* m_conn;
  std::shared_ptr<const Prepared> m_prep;
  std::string m_name;
  std::vector<std::optional<std::string>> m_values;
  ResultPtr m_result;
  int m_row = -1;
  // get_text_view's converted values (booleans, reals, bytea) of the current row.
  mutable std::vector<std::unique_ptr<std::string>> m_converted;
};

class PgDatabase final : public DatabaseImpl {
public:
  explicit PgDatabase(ConnPtr conn) { m_conn.conn = std::move(conn); }

  [[nodiscard]] Backend backend() const override { return Backend::postgresql; }

  Result<std::unique_ptr<StatementImpl>> prepare(std::string_view sql, std::string_view name) override
  {
    NumberedSql numbered = number_parameters(sql);
    auto found = m_conn.prepared.find(numbered.sql);
    if (found == m_conn.prepared.end()) {
      PGconn* conn = m_conn.conn.get();
      auto prep = std::make_shared<Prepared>();
      prep->statement = fmt::format("rfdb_{}", m_conn.next_statement++);
      prep->params = std::move(numbered.names);
      const std::string what = fmt::format("prepare {}", name);
      ResultPtr made(pq().PQprepare(conn, prep->statement.c_str(), numbered.sql.c_str(),
                                    static_cast<int>(prep->params.size()), nullptr));
      if (!made || !ok_status(made.get())) {
        return fail(pg_error(conn, made.get(), what));
      }
      ResultPtr shape(pq().PQdescribePrepared(conn, prep->statement.c_str()));
      if (!shape || !ok_status(shape.get())) {
        return fail(pg_error(conn, shape.get(), what));
      }
      for (int c = 0; c < pq().PQnfields(shape.get()); ++c) {
        prep->columns.emplace_back(pq().PQfname(shape.get(), c));
        prep->types.push_back(pq().PQftype(shape.get(), c));
      }
      found = m_conn.prepared.emplace(std::move(numbered.sql), std::move(prep)).first;
    }
    return std::unique_ptr<StatementImpl>(
        std::make_unique<PgStatement>(m_conn, found->second, std::string(name)));
  }

  Result<void> exec(std::string_view sql, std::string_view name) override
  {
    RFDB_TRY(run(m_conn.conn.get(), sql, fmt::format("query {}", name)));
    return {};
  }

  Result<StatementInfo> describe(std::string_view sql, std::string_view name) override
  {
    // Whether a query reads only, and its parameters, are properties of the
    // SQLite text (rfdb query lists the same queries on both backends).
    if (!m_sqlite) {
      auto mem = Database::open(":memory:");
      if (!mem) {
        return fail(std::move(mem).error());
      }
      m_sqlite = std::make_unique<Database>(std::move(*mem));
    }
    return m_sqlite->describe(sql, name);
  }

  Result<void> begin_write() override
  {
    RFDB_TRY(exec("BEGIN ISOLATION LEVEL SERIALIZABLE", "begin"));
    // One rfdb writer at a time, as SQLite's BEGIN IMMEDIATE: a self-conflicting
    // lock readers (ACCESS SHARE) do not wait for. LOCK TABLE takes no snapshot,
    // so the transaction's snapshot, taken by its first query, already sees the
    // previous writer's commit; under many concurrent writers this keeps
    // serialization failures (and retries) the exception, not the rule.
    auto locked = exec("LOCK TABLE rfdb_meta IN SHARE ROW EXCLUSIVE MODE", "begin: write lock");
    if (!locked) {
      (void)exec("ROLLBACK", "begin: write lock");
      return locked;
    }
    return {};
  }

  [[nodiscard]] bool in_transaction() const override
  {
    return pq().PQtransactionStatus(m_conn.conn.get()) != PQTRANS_IDLE;
  }

  [[nodiscard]] std::int64_t last_insert_rowid() const override { return m_conn.last_id; }

  [[nodiscard]] int schema_version() const override
  {
    ResultPtr res(pq().PQexec(m_conn.conn.get(), "SELECT value FROM rfdb_meta WHERE key = 'schema_version'"));
    if (!res || pq().PQresultStatus(res.get()) != PGRES_TUPLES_OK || pq().PQntuples(res.get()) != 1) {
      return 0;
    }
    return std::atoi(pq().PQgetvalue(res.get(), 0, 0));
  }

private:
  Connection m_conn;
  std::unique_ptr<Database> m_sqlite; // describe()'s in-memory schema
};

extern "C" void ignore_notice(void* /*arg*/, const char* /*message*/) {}

// Connect to `url` and set the session up (see pg_backend.hpp).
Result<ConnPtr> connect(const std::string& url)
{
  if (const auto& loaded = libpq(); !loaded) {
    return fail(loaded.error());
  }
  ConnPtr conn(pq().PQconnectdb(url.c_str()));
  if (!conn) {
    return fail(ErrorCode::db, "cannot allocate a PostgreSQL connection");
  }
  if (pq().PQstatus(conn.get()) != CONNECTION_OK) {
    return fail(make_error(ErrorCode::db, "cannot connect to PostgreSQL: " +
                                              std::string(util::trim(pq().PQerrorMessage(conn.get()))))
                    .with_hint("check the server, the URI (postgresql://USER@HOST:PORT/DBNAME), the PG* "
                               "environment variables and ~/.pgpass"));
  }
  pq().PQsetNoticeProcessor(conn.get(), ignore_notice, nullptr);
  RFDB_TRY(run(conn.get(),
               "SET client_encoding = 'UTF8'; SET extra_float_digits = 1; SET bytea_output = 'hex'; "
               "SET client_min_messages = 'warning'",
               "open"));
  return conn;
}

// rfdb_meta's application id and version, and how many relations the
// current schema holds, from one snapshot.
Result<Identity> read_identity(PGconn* conn)
{
  ResultPtr res;
  RFDB_TRY_ASSIGN(
      res, run(conn,
               "SELECT (SELECT count(*) FROM pg_catalog.pg_class c"
               "        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
               "        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'm', 'p', 'f')),"
               " to_regclass(quote_ident(current_schema()) || '.rfdb_meta') IS NOT NULL",
               "open"));
  Identity id;
  id.objects = std::atoi(pq().PQgetvalue(res.get(), 0, 0));
  const bool has_meta = *pq().PQgetvalue(res.get(), 0, 1) == 't';
  if (!has_meta) {
    if (id.objects > 0) {
      return fail(ErrorCode::not_rfdb_db, "not an rfdb database (tables, but no rfdb_meta)");
    }
    return id;
  }
  RFDB_TRY_ASSIGN(
      res, run(conn, "SELECT key, value FROM rfdb_meta WHERE key IN ('application_id', 'schema_version')",
               "open"));
  for (int r = 0; r < pq().PQntuples(res.get()); ++r) {
    const std::string_view key = pq().PQgetvalue(res.get(), r, 0);
    const long long value = std::strtoll(pq().PQgetvalue(res.get(), r, 1), nullptr, 10);
    if (key == "application_id") {
      id.application_id = static_cast<int>(value);
    } else {
      id.version = static_cast<int>(value);
    }
  }
  return id;
}

// Apply the pending migrations in one transaction under the advisory lock,
// re-reading the identity once the lock is held (another client may have
// migrated meanwhile).
Result<void> migrate(PGconn* conn, OlderSchema older)
{
  if (sql::k_pg_migrations.size() != sql::k_migrations.size()) {
    return fail(ErrorCode::internal,
                fmt::format("{} PostgreSQL migrations for {} SQLite ones: the schemas differ",
                            sql::k_pg_migrations.size(), sql::k_migrations.size()));
  }
  RFDB_TRY(run(conn, "BEGIN ISOLATION LEVEL READ COMMITTED", "migrate"));
  auto body = [&]() -> Result<void> {
    RFDB_TRY(run_params(conn, "SELECT pg_advisory_xact_lock($1)", {std::to_string(k_migration_lock)},
                        "migrate: lock"));
    Identity id;
    RFDB_TRY_ASSIGN(id, read_identity(conn));
    RFDB_TRY(check_identity(id, older));
    if (id.version >= newest_schema_version()) {
      return {};
    }
    for (const auto& m : sql::k_pg_migrations) {
      if (m.version > id.version) {
        RFDB_TRY(
            run(conn, m.sql, fmt::format("migrate: migrations/postgresql/{:04}_{}.sql", m.version, m.name)));
      }
    }
    const char* upsert = "INSERT INTO rfdb_meta (key, value) VALUES ($1, $2) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value";
    RFDB_TRY(run_params(conn, upsert, {"application_id", std::to_string(k_application_id)}, "migrate"));
    RFDB_TRY(
        run_params(conn, upsert, {"schema_version", std::to_string(newest_schema_version())}, "migrate"));
    return {};
  };
  if (auto r = body(); !r) {
    ResultPtr rollback(pq().PQexec(conn, "ROLLBACK"));
    return r;
  }
  RFDB_TRY(run(conn, "COMMIT", "migrate: commit"));
  return {};
}

// PostgreSQL's version of the needs_migration hint: no backup is written.
Error pg_hint(Error e)
{
  if (e.code == ErrorCode::needs_migration) {
    e = std::move(e).with_hint("back the database up with pg_dump, then run `rfdb migrate`; older rfdb "
                               "binaries cannot read the upgraded database");
  }
  return e;
}

} // namespace

NumberedSql number_parameters(std::string_view sql)
{
  NumberedSql out;
  out.sql.reserve(sql.size());
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  std::size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    const char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
    if (c == '\'' || c == '"') {
      const std::size_t end = sql.find(c, i + 1);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end + 1;
      out.sql.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == '-' && next == '-') {
      const std::size_t end = sql.find('\n', i);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end;
      out.sql.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == '/' && next == '*') {
      const std::size_t end = sql.find("*/", i + 2);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end + 2;
      out.sql.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == ':' && next == ':') {
      out.sql.append("::");
      i += 2;
    } else if (c == ':' && (std::isalpha(static_cast<unsigned char>(next)) != 0 || next == '_')) {
      std::size_t end = i + 1;
      while (end < sql.size() && ident(sql[end])) {
        ++end;
      }
      const std::string name(sql.substr(i + 1, end - i - 1));
      auto it = std::find(out.names.begin(), out.names.end(), name);
      if (it == out.names.end()) {
        out.names.push_back(name);
        it = out.names.end() - 1;
      }
      out.sql += fmt::format("${}", (it - out.names.begin()) + 1);
      i = end;
    } else {
      out.sql += c;
      ++i;
    }
  }
  return out;
}

std::string sqlite_real_text(double value)
{
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.15g", value);
  std::string out(buf.data());
  if (out.find_first_of("in") != std::string::npos) { // inf, nan
    return out;
  }
  const auto e = out.find('e');
  if (out.find('.') == std::string::npos) {
    out.insert(e == std::string::npos ? out.size() : e, ".0");
  }
  return out;
}

Result<Database> pg_open(const std::string& url)
{
  ConnPtr conn;
  RFDB_TRY_ASSIGN(conn, connect(url));
  // Read-only checks first, so a refused database is left untouched.
  Identity id;
  RFDB_TRY_ASSIGN(id, read_identity(conn.get()));
  if (auto checked = check_identity(id, OlderSchema::refuse); !checked) {
    return fail(pg_hint(std::move(checked).error()));
  }
  if (id.version < newest_schema_version()) {
    RFDB_TRY(migrate(conn.get(), OlderSchema::refuse));
  }
  return Database(std::make_unique<PgDatabase>(std::move(conn)), url, false);
}

Result<Database> pg_open_read_only(const std::string& url, OlderSchema older)
{
  ConnPtr conn;
  RFDB_TRY_ASSIGN(conn, connect(url));
  Identity id;
  RFDB_TRY_ASSIGN(id, read_identity(conn.get()));
  if (id.fresh()) {
    return fail(make_error(ErrorCode::not_found, "the PostgreSQL database holds no rfdb schema")
                    .with_hint("`rfdb ingest EVAL_DIR…` creates it; --db URI (or RFDB_DB) says which "
                               "database to read"));
  }
  if (auto checked = check_identity(id, older); !checked) {
    return fail(pg_hint(std::move(checked).error()));
  }
  RFDB_TRY(run(conn.get(), "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "open"));
  return Database(std::make_unique<PgDatabase>(std::move(conn)), url, true);
}

Result<MigrateReport> pg_migrate_database(const std::string& url)
{
  ConnPtr conn;
  RFDB_TRY_ASSIGN(conn, connect(url));
  Identity id;
  RFDB_TRY_ASSIGN(id, read_identity(conn.get()));
  RFDB_TRY(check_identity(id, OlderSchema::accept));
  MigrateReport report;
  report.from_version = id.version;
  report.to_version = newest_schema_version();
  report.created = id.fresh();
  if (id.version < newest_schema_version()) {
    RFDB_TRY(migrate(conn.get(), OlderSchema::accept));
  }
  return report;
}

} // namespace rfdb::store::detail
