// The SQLite backend: raw sqlite3 statements bound by name, read by column (see sqlite_backend.hpp).
#include "store/sqlite_backend.hpp"

#include "store/sqlite_error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <sqlite3.h>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rfdb::store::detail {

void classify_sqlite(Error& err, int code, bool unwritable)
{
  switch (code & 0xFF) {
  case SQLITE_NOTADB:
    err.code = ErrorCode::not_rfdb_db;
    err.message = "not an rfdb database (not an SQLite file)";
    break;
  case SQLITE_FULL:
    err.code = ErrorCode::disk_full;
    err.message = "the disk is full (" + err.message + ")";
    err.hint = "free space on the database's disk (the database and its -wal grow while a run is "
               "stored), then run the command again";
    break;
  case SQLITE_CANTOPEN:
    if (!unwritable) {
      break;
    }
    [[fallthrough]];
  case SQLITE_READONLY:
    err.code = ErrorCode::read_only;
    err.message = "the database is read-only (" + err.message + ")";
    err.hint = k_read_only_hint;
    break;
  default:
    break;
  }
}

Error from_sqlite(const SQLite::Exception& e, std::string_view what)
{
  Error err = make_error(ErrorCode::db, fmt::format("{} (sqlite code {}, extended {})", e.what(),
                                                    e.getErrorCode(), e.getExtendedErrorCode()));
  classify_sqlite(err, e.getErrorCode());
  if (!what.empty()) {
    err = std::move(err).with_context(std::string(what));
  }
  return err;
}

namespace {

// Error from a failed sqlite3 call on `db`, as SQLiteCpp's Exception(db, rc)
// reports it: SQLite's message with the call's code and the connection's
// extended code.
Error raw_error(sqlite3* db, int rc, std::string_view what)
{
  Error err = make_error(ErrorCode::db, fmt::format("{} (sqlite code {}, extended {})", sqlite3_errmsg(db),
                                                    rc, sqlite3_extended_errcode(db)));
  classify_sqlite(err, rc);
  return std::move(err).with_context(std::string(what));
}

// An error that is not the connection's last one (no extended code), as
// SQLiteCpp's Exception(message, rc) reports it.
Error raw_error(const char* message, int rc, std::string_view what)
{
  Error err = make_error(ErrorCode::db, fmt::format("{} (sqlite code {}, extended -1)", message, rc));
  classify_sqlite(err, rc);
  return std::move(err).with_context(std::string(what));
}

// set_sqlite_write_fault: the code to fail with (0: disarmed) and the writes before it.
std::atomic<int> g_fault_code{0};
std::atomic<int> g_fault_after{0};

// The injected failure of this write statement, if one is due.
std::optional<Error> injected_fault(sqlite3_stmt* stmt, std::string_view what)
{
  if (g_fault_code.load() == 0 || sqlite3_stmt_readonly(stmt) != 0) {
    return std::nullopt;
  }
  if (g_fault_after.fetch_sub(1) > 0) {
    return std::nullopt;
  }
  const int code = g_fault_code.exchange(0);
  return raw_error(sqlite3_errstr(code), code, what);
}

// A statement on the raw sqlite3 API: columns are read with one sqlite3
// call each (no wrapper object per column), binds and steps report errors
// as SQLiteCpp did (see raw_error).
class SqliteStatement final : public StatementImpl {
public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string name)
      : m_db(db), m_stmt(stmt, sqlite3_finalize), m_name(std::move(name)),
        m_columns(sqlite3_column_count(stmt))
  {
  }

  // A name that is not a parameter binds at index 0, which fails with
  // SQLite's "column index out of range".
  Result<void> bind_null(const char* name) override
  {
    return check_bind(name, sqlite3_bind_null(raw(), index(name)));
  }
  Result<void> bind_int(const char* name, std::int64_t value) override
  {
    return check_bind(name, sqlite3_bind_int64(raw(), index(name), value));
  }
  Result<void> bind_double(const char* name, double value) override
  {
    return check_bind(name, sqlite3_bind_double(raw(), index(name), value));
  }
  Result<void> bind_text(const char* name, std::string_view value) override
  {
    return bind_bytes(name, value, sqlite3_bind_text);
  }
  Result<void> bind_blob(const char* name, std::string_view bytes) override
  {
    return bind_bytes(name, bytes, sqlite3_bind_blob);
  }

  Result<int> exec() override
  {
    if (auto fault = injected_fault(raw(), what())) {
      reset();
      return fail(std::move(*fault));
    }
    const int rc = sqlite3_step(raw());
    if (rc == SQLITE_DONE) {
      const int changed = sqlite3_changes(m_db);
      reset();
      return changed;
    }
    Error err = rc == SQLITE_ROW ? raw_error("exec() does not expect results. Use executeStep.", -1, what())
                                 : step_error(rc);
    reset();
    return fail(std::move(err));
  }

  Result<bool> step() override
  {
    if (auto fault = injected_fault(raw(), what())) {
      reset();
      return fail(std::move(*fault));
    }
    const int rc = sqlite3_step(raw());
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc == SQLITE_DONE) {
      reset(); // ready for the next binding, as documented
      return false;
    }
    Error err = step_error(rc);
    reset();
    return fail(std::move(err));
  }

  void reset() noexcept override
  {
    // sqlite3_reset reports the previous step's error again; it was already returned.
    sqlite3_reset(raw());
    sqlite3_clear_bindings(raw());
  }

  [[nodiscard]] bool is_null(int col) const override
  {
    return sqlite3_column_type(raw(), col) == SQLITE_NULL;
  }
  [[nodiscard]] bool is_number(int col) const override
  {
    const int type = sqlite3_column_type(raw(), col);
    return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
  }
  [[nodiscard]] std::int64_t get_int(int col) const override { return sqlite3_column_int64(raw(), col); }
  [[nodiscard]] double get_double(int col) const override { return sqlite3_column_double(raw(), col); }
  [[nodiscard]] std::string get_text(int col) const override
  {
    // As SQLiteCpp's getString: the bytes of the value's text or blob form.
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(raw(), col));
    return bytes == nullptr ? std::string()
                            : std::string(bytes, static_cast<std::size_t>(sqlite3_column_bytes(raw(), col)));
  }
  [[nodiscard]] std::string_view get_text_view(int col) const override
  {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw(), col)); // before the length
    return text == nullptr
               ? std::string_view()
               : std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(raw(), col)));
  }
  // The optional readers take the column's value once (one sqlite3_column
  // call, which enters the connection) and read it with the value API.
  [[nodiscard]] std::optional<std::string_view> get_opt_text_view(int col) const override
  {
    sqlite3_value* v = sqlite3_column_value(raw(), col);
    if (sqlite3_value_type(v) == SQLITE_NULL) {
      return std::nullopt;
    }
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v)); // before the length
    return text == nullptr ? std::string_view()
                           : std::string_view(text, static_cast<std::size_t>(sqlite3_value_bytes(v)));
  }
  [[nodiscard]] std::optional<double> get_opt_double(int col) const override
  {
    sqlite3_value* v = sqlite3_column_value(raw(), col);
    if (sqlite3_value_type(v) == SQLITE_NULL) {
      return std::nullopt;
    }
    return sqlite3_value_double(v);
  }
  [[nodiscard]] std::optional<std::int64_t> get_opt_int(int col) const override
  {
    sqlite3_value* v = sqlite3_column_value(raw(), col);
    if (sqlite3_value_type(v) == SQLITE_NULL) {
      return std::nullopt;
    }
    return sqlite3_value_int64(v);
  }
  [[nodiscard]] std::string get_blob(int col) const override
  {
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(raw(), col));
    return bytes == nullptr ? std::string()
                            : std::string(bytes, static_cast<std::size_t>(sqlite3_column_bytes(raw(), col)));
  }
  [[nodiscard]] int column_count() const override { return m_columns; }
  [[nodiscard]] std::string column_name(int col) const override
  {
    if (col < 0 || col >= m_columns) {
      throw std::out_of_range("Column index out of range.");
    }
    return sqlite3_column_name(raw(), col);
  }
  [[nodiscard]] int index_of(const char* col) const override
  {
    for (int i = 0; i < m_columns; ++i) {
      if (std::strcmp(sqlite3_column_name(raw(), i), col) == 0) {
        return i;
      }
    }
    throw std::out_of_range(fmt::format("Unknown column name {}.", col));
  }

private:
  [[nodiscard]] sqlite3_stmt* raw() const { return m_stmt.get(); }
  [[nodiscard]] std::string what() const { return fmt::format("query {}", m_name); }

  // A failed step: the connection's error when it is this step's, else the
  // code alone (SQLiteCpp's "Statement needs to be reseted").
  Error step_error(int rc) const
  {
    return rc == sqlite3_errcode(m_db) ? raw_error(m_db, rc, what())
                                       : raw_error("Statement needs to be reseted", rc, what());
  }

  Result<void> check_bind(const char* name, int rc) const
  {
    if (rc == SQLITE_OK) {
      return {};
    }
    return fail(raw_error(m_db, rc, what()).with_context(fmt::format("bind {}", name)));
  }

  // The parameter index of `name` (0: none). Statements bind their
  // parameters in the same order on every execution, so the slot after the
  // previous hit is tried first; names are compared, not their addresses.
  int index(const char* name)
  {
    const std::size_t n = m_index.size();
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t at = (m_next + k) % n;
      if (m_index[at].first == name) {
        m_next = at + 1;
        return m_index[at].second;
      }
    }
    const int i = sqlite3_bind_parameter_index(raw(), name);
    if (i > 0) {
      m_index.emplace_back(name, i);
      m_next = m_index.size();
    }
    return i;
  }

  // The buffer a text or blob parameter is bound from (SQLITE_STATIC: SQLite
  // reads it in place, no copy per execution). Each lives, at a stable
  // address, until the statement is destroyed; reset() unbinds them.
  std::string& kept_value(int i)
  {
    const auto at = static_cast<std::size_t>(i);
    if (m_kept.size() <= at) {
      m_kept.resize(at + 1);
    }
    if (!m_kept[at]) {
      m_kept[at] = std::make_unique<std::string>();
    }
    return *m_kept[at];
  }

  // Bind text or a blob (`bind`: sqlite3_bind_text or sqlite3_bind_blob)
  // from its kept buffer; a name that is not a parameter fails in SQLite.
  template <typename Pointer>
  Result<void> bind_bytes(const char* name, std::string_view bytes,
                          int (*bind)(sqlite3_stmt*, int, Pointer, int, void (*)(void*)))
  {
    const int i = index(name);
    if (i <= 0) {
      return check_bind(name, bind(raw(), i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT));
    }
    std::string& kept = kept_value(i);
    kept.assign(bytes);
    return check_bind(name, bind(raw(), i, kept.data(), static_cast<int>(kept.size()), SQLITE_STATIC));
  }

  sqlite3* m_db;
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> m_stmt;
  std::string m_name;
  int m_columns;
  std::vector<std::pair<std::string, int>> m_index; // parameter name → index, as first bound
  std::size_t m_next = 0;                           // where index() looks first
  std::vector<std::unique_ptr<std::string>> m_kept; // by parameter index
};

} // namespace

SqliteDatabase::SqliteDatabase(std::unique_ptr<SQLite::Database> db) : m_db(std::move(db)) {}
SqliteDatabase::~SqliteDatabase() = default;

Result<std::unique_ptr<StatementImpl>> SqliteDatabase::prepare(std::string_view sql, std::string_view name)
{
  sqlite3* db = m_db->getHandle();
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return fail(raw_error(db, rc, fmt::format("prepare {}", name)));
  }
  return std::unique_ptr<StatementImpl>(std::make_unique<SqliteStatement>(db, stmt, std::string(name)));
}

Result<void> SqliteDatabase::exec(std::string_view sql, std::string_view name)
{
  try {
    m_db->exec(std::string(sql));
    return {};
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, fmt::format("query {}", name)));
  }
}

Result<StatementInfo> SqliteDatabase::describe(std::string_view sql, std::string_view name)
{
  // SQLiteCpp keeps its sqlite3_stmt private: prepare a second, raw handle.
  sqlite3_stmt* raw_stmt = nullptr;
  const int rc =
      sqlite3_prepare_v2(m_db->getHandle(), sql.data(), static_cast<int>(sql.size()), &raw_stmt, nullptr);
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw_stmt, sqlite3_finalize);
  if (rc != SQLITE_OK) {
    return fail(
        make_error(ErrorCode::db, fmt::format("{} (sqlite code {})", sqlite3_errmsg(m_db->getHandle()), rc))
            .with_context(fmt::format("prepare {}", name)));
  }
  StatementInfo info;
  info.read_only = stmt && sqlite3_stmt_readonly(stmt.get()) != 0;
  const int count = stmt ? sqlite3_bind_parameter_count(stmt.get()) : 0;
  for (int i = 1; i <= count; ++i) {
    const char* p = sqlite3_bind_parameter_name(stmt.get(), i);
    if (p != nullptr) {
      info.parameters.emplace_back(p + 1); // drop the ':' (or '@', '$')
    }
  }
  return info;
}

Result<void> SqliteDatabase::begin_write()
{
  return exec("BEGIN IMMEDIATE", "begin");
}

bool SqliteDatabase::in_transaction() const
{
  return sqlite3_get_autocommit(m_db->getHandle()) == 0;
}

std::int64_t SqliteDatabase::last_insert_rowid() const
{
  return m_db->getLastInsertRowid();
}

int SqliteDatabase::schema_version() const
{
  return m_db->execAndGet("PRAGMA user_version").getInt();
}

} // namespace rfdb::store::detail

namespace rfdb::store {

void set_sqlite_write_fault(std::optional<SqliteWriteFault> fault)
{
  detail::g_fault_after.store(fault ? fault->after : 0);
  detail::g_fault_code.store(fault ? fault->code : 0);
}

} // namespace rfdb::store
