#include "store/database.hpp"

#include "rfdb_sql.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <thread>

namespace rfdb::store {

namespace {

constexpr int k_busy_timeout_ms = 10000;

Error from_sqlite(const SQLite::Exception& e, std::string_view what)
{
  Error err = make_error(ErrorCode::db, fmt::format("{} (sqlite code {}, extended {})", e.what(),
                                                    e.getErrorCode(), e.getExtendedErrorCode()));
  if (e.getErrorCode() == SQLITE_NOTADB) {
    err.code = ErrorCode::not_rfdb_db;
    err.message = "not an rfdb database (not an SQLite file)";
  }
  if (!what.empty()) {
    err = std::move(err).with_context(std::string(what));
  }
  return err;
}

// True when the first 16 bytes are not the SQLite header (an empty file is fine).
bool has_foreign_header(const std::string& path)
{
  std::error_code ec;
  if (path == ":memory:" || !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0) {
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  return in.gcount() < 16 || std::string_view(header.data(), 15) != "SQLite format 3";
}

// Switch to WAL once per file. Changing the journal mode needs an exclusive
// lock and SQLite does not wait for it, so retry while another process holds
// the file, up to the busy timeout.
Result<void> enable_wal(SQLite::Database& db)
{
  for (int waited_ms = 0;; waited_ms += 20) {
    try {
      if (db.execAndGet("PRAGMA journal_mode").getString() == "wal") {
        return {};
      }
      db.execAndGet("PRAGMA journal_mode = WAL"); // "memory" stays for :memory:
      return {};
    } catch (const SQLite::Exception& e) {
      if (e.getErrorCode() != SQLITE_BUSY || waited_ms >= k_busy_timeout_ms) {
        return fail(from_sqlite(e, "open: journal_mode"));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace

// ---- Statement -------------------------------------------------------------

Statement::Statement(std::unique_ptr<SQLite::Statement> stmt, std::string name)
    : m_stmt(std::move(stmt)), m_name(std::move(name))
{
}
Statement::Statement() = default;
Statement::Statement(Statement&&) noexcept = default;
Statement& Statement::operator=(Statement&&) noexcept = default;
Statement::~Statement() = default;

Error Statement::sqlite_error(const std::exception& e) const
{
  if (const auto* se = dynamic_cast<const SQLite::Exception*>(&e)) {
    return from_sqlite(*se, fmt::format("query {}", m_name));
  }
  return make_error(ErrorCode::db, e.what()).with_context(fmt::format("query {}", m_name));
}

template <typename T> Statement& Statement::bind_value(const char* name, const T& value)
{
  if (m_bind_error) {
    return *this;
  }
  try {
    m_stmt->bind(name, value);
  } catch (const std::exception& e) {
    m_bind_error = sqlite_error(e).with_context(fmt::format("bind {}", name));
  }
  return *this;
}

Statement& Statement::bind(const char* name, std::nullopt_t)
{
  if (m_bind_error) {
    return *this;
  }
  try {
    m_stmt->bind(name);
  } catch (const std::exception& e) {
    m_bind_error = sqlite_error(e).with_context(fmt::format("bind {}", name));
  }
  return *this;
}
Statement& Statement::bind(const char* name, std::int64_t value)
{
  return bind_value(name, value);
}
Statement& Statement::bind(const char* name, int value)
{
  return bind_value(name, value);
}
Statement& Statement::bind(const char* name, double value)
{
  return bind_value(name, value);
}
Statement& Statement::bind(const char* name, bool value)
{
  return bind_value(name, value ? 1 : 0);
}
Statement& Statement::bind(const char* name, std::string_view value)
{
  return bind_value(name, std::string(value));
}
Statement& Statement::bind(const char* name, const std::string& value)
{
  return bind_value(name, value);
}
Statement& Statement::bind(const char* name, const char* value)
{
  return bind_value(name, std::string(value));
}
Statement& Statement::bind(const char* name, const std::optional<double>& value)
{
  return value ? bind(name, *value) : bind(name, std::nullopt);
}
Statement& Statement::bind(const char* name, const std::optional<std::int64_t>& value)
{
  return value ? bind(name, *value) : bind(name, std::nullopt);
}
Statement& Statement::bind(const char* name, const std::optional<std::string>& value)
{
  return value ? bind(name, *value) : bind(name, std::nullopt);
}
Statement& Statement::bind(const char* name, const std::optional<bool>& value)
{
  return value ? bind(name, *value) : bind(name, std::nullopt);
}

Result<int> Statement::exec()
{
  if (m_bind_error) {
    Error e = std::move(*m_bind_error);
    reset();
    return fail(std::move(e));
  }
  try {
    int changed = m_stmt->exec();
    reset();
    return changed;
  } catch (const std::exception& e) {
    Error err = sqlite_error(e);
    reset();
    return fail(std::move(err));
  }
}

Result<bool> Statement::step()
{
  if (m_bind_error) {
    Error e = std::move(*m_bind_error);
    reset();
    return fail(std::move(e));
  }
  try {
    const bool row = m_stmt->executeStep();
    if (!row) {
      reset(); // ready for the next binding, as documented
    }
    return row;
  } catch (const std::exception& e) {
    Error err = sqlite_error(e);
    reset();
    return fail(std::move(err));
  }
}

void Statement::reset()
{
  m_bind_error.reset();
  try {
    m_stmt->reset();
    m_stmt->clearBindings();
  } catch (const std::exception&) {
    // reset() reports the previous step's error again; it was already returned.
  }
}

bool Statement::is_null(int col) const
{
  return m_stmt->isColumnNull(col);
}
bool Statement::is_number(int col) const
{
  const auto column = m_stmt->getColumn(col);
  return column.isInteger() || column.isFloat();
}
std::int64_t Statement::get_int(int col) const
{
  return m_stmt->getColumn(col).getInt64();
}
double Statement::get_double(int col) const
{
  return m_stmt->getColumn(col).getDouble();
}
std::string Statement::get_text(int col) const
{
  return m_stmt->getColumn(col).getString();
}
std::optional<std::int64_t> Statement::get_opt_int(int col) const
{
  return is_null(col) ? std::nullopt : std::optional<std::int64_t>(get_int(col));
}
std::optional<double> Statement::get_opt_double(int col) const
{
  return is_null(col) ? std::nullopt : std::optional<double>(get_double(col));
}
std::optional<std::string> Statement::get_opt_text(int col) const
{
  return is_null(col) ? std::nullopt : std::optional<std::string>(get_text(col));
}
int Statement::column_count() const
{
  return m_stmt->getColumnCount();
}
std::string Statement::column_name(int col) const
{
  return m_stmt->getColumnName(col);
}
int Statement::column_index(std::string_view name) const
{
  for (int i = 0; i < column_count(); ++i) {
    if (column_name(i) == name) {
      return i;
    }
  }
  return -1;
}

// ---- Database --------------------------------------------------------------

Database::Database(std::unique_ptr<SQLite::Database> db, std::string path)
    : m_db(std::move(db)), m_path(std::move(path))
{
}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

int newest_schema_version()
{
  return static_cast<int>(sql::k_migrations.size());
}

Result<Database> Database::open(const std::string& path)
{
  if (has_foreign_header(path)) {
    return fail(ErrorCode::not_rfdb_db, "not an rfdb database (not an SQLite file)");
  }
  std::unique_ptr<SQLite::Database> db;
  try {
    db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db->setBusyTimeout(k_busy_timeout_ms);
    // Read-only checks first, so a refused file is left exactly as it was.
    // One statement reads all three from one snapshot: a concurrent creator
    // commits the schema and application_id together.
    SQLite::Statement probe(*db, "SELECT (SELECT application_id FROM pragma_application_id()),"
                                 " (SELECT user_version FROM pragma_user_version()),"
                                 " (SELECT count(*) FROM sqlite_master)");
    probe.executeStep();
    const auto app_id = probe.getColumn(0).getInt();
    const auto version = probe.getColumn(1).getInt();
    const auto objects = probe.getColumn(2).getInt();
    probe.reset();
    if (app_id != k_application_id && (app_id != 0 || version != 0 || objects != 0)) {
      return fail(ErrorCode::not_rfdb_db, fmt::format("not an rfdb database (application_id {:#x})", app_id));
    }
    if (version > newest_schema_version()) {
      return fail(make_error(ErrorCode::schema_too_new,
                             fmt::format("database schema is version {}, this rfdb supports up to {}",
                                         version, newest_schema_version()))
                      .with_hint("upgrade rfdb to read this database"));
    }
    RFDB_TRY(enable_wal(*db));
    db->exec("PRAGMA foreign_keys = ON");
    db->exec("PRAGMA synchronous = NORMAL");
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "open"));
  }
  Database out(std::move(db), path);
  RFDB_TRY(out.migrate());
  return out;
}

Result<Database> Database::open_existing_or_empty(const std::string& path)
{
  std::error_code ec;
  if (path != ":memory:" && !std::filesystem::exists(path, ec)) {
    return open(":memory:");
  }
  return open(path);
}

Result<void> Database::migrate()
{
  Transaction tx(*this);
  try {
    m_db->exec("BEGIN IMMEDIATE");
    // Re-read inside the write lock: another process may have migrated.
    const int version = m_db->execAndGet("PRAGMA user_version").getInt();
    if (version > newest_schema_version()) {
      return fail(ErrorCode::schema_too_new,
                  fmt::format("database schema is version {}, this rfdb supports up to {}", version,
                              newest_schema_version()));
    }
    for (const auto& m : sql::k_migrations) {
      if (m.version > version) {
        m_db->exec(std::string(m.sql));
      }
    }
    if (version < newest_schema_version()) {
      // PRAGMAs take no parameters; the value is our own integer constant.
      m_db->exec(fmt::format("PRAGMA application_id = {}", k_application_id));
      m_db->exec(fmt::format("PRAGMA user_version = {}", newest_schema_version()));
    }
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "migrate"));
  }
  return tx.commit();
}

Result<Statement> Database::prepare(std::string_view sql, std::string_view name)
{
  try {
    return Statement(std::make_unique<SQLite::Statement>(*m_db, std::string(sql)), std::string(name));
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, fmt::format("prepare {}", name)));
  }
}

Result<void> Database::exec(std::string_view sql, std::string_view name)
{
  try {
    m_db->exec(std::string(sql));
    return {};
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, fmt::format("query {}", name)));
  }
}

Result<Transaction> Database::begin_immediate()
{
  RFDB_TRY(exec("BEGIN IMMEDIATE", "begin"));
  return Transaction(*this);
}

std::int64_t Database::last_insert_rowid() const
{
  return m_db->getLastInsertRowid();
}

int Database::schema_version() const
{
  return m_db->execAndGet("PRAGMA user_version").getInt();
}

// ---- Transaction -----------------------------------------------------------

Transaction::Transaction(Transaction&& other) noexcept : m_db(other.m_db), m_open(other.m_open)
{
  other.m_open = false;
}

Transaction::~Transaction()
{
  rollback();
}

Result<void> Transaction::commit()
{
  if (!m_open) {
    return fail(ErrorCode::internal, "commit of a finished transaction");
  }
  auto r = m_db->exec("COMMIT", "commit");
  if (r) {
    m_open = false;
  }
  return r;
}

void Transaction::rollback() noexcept
{
  if (!m_open) {
    return;
  }
  m_open = false;
  try {
    if (sqlite3_get_autocommit(m_db->m_db->getHandle()) == 0) {
      m_db->m_db->exec("ROLLBACK");
    }
  } catch (...) {
    // Destructors never throw; SQLite rolls back on close anyway.
  }
}

} // namespace rfdb::store
