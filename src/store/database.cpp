// The SQLite connection and prepared statements: bind by name, read columns by name, transactions.
#include "store/database.hpp"

#include "store/sqlite_error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <sqlite3.h>

namespace rfdb::store {

namespace detail {

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

} // namespace detail

using detail::from_sqlite;

// ---- Statement -------------------------------------------------------------

Statement::Statement(std::unique_ptr<SQLite::Statement> stmt, std::string name)
    : m_stmt(std::move(stmt)), m_name(std::move(name))
{
}
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
std::optional<std::string_view> Statement::get_opt_text_view(int col) const
{
  if (is_null(col)) {
    return std::nullopt;
  }
  const auto column = m_stmt->getColumn(col);
  const char* text = column.getText(); // before getBytes: the length is of the text form
  return std::string_view(text, static_cast<std::size_t>(column.getBytes()));
}
int Statement::index_of(const char* col) const
{
  return m_stmt->getColumnIndex(col);
}
bool Statement::is_null(const char* col) const
{
  return is_null(index_of(col));
}
bool Statement::is_number(const char* col) const
{
  return is_number(index_of(col));
}
std::int64_t Statement::get_int(const char* col) const
{
  return get_int(index_of(col));
}
double Statement::get_double(const char* col) const
{
  return get_double(index_of(col));
}
std::string Statement::get_text(const char* col) const
{
  return get_text(index_of(col));
}
std::optional<std::int64_t> Statement::get_opt_int(const char* col) const
{
  return get_opt_int(index_of(col));
}
std::optional<double> Statement::get_opt_double(const char* col) const
{
  return get_opt_double(index_of(col));
}
std::optional<std::string> Statement::get_opt_text(const char* col) const
{
  return get_opt_text(index_of(col));
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

Result<Statement> Database::prepare(std::string_view sql, std::string_view name)
{
  try {
    return Statement(std::make_unique<SQLite::Statement>(*m_db, std::string(sql)), std::string(name));
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, fmt::format("prepare {}", name)));
  }
}

Result<std::vector<Statement>> prepare_all(Database& db, std::initializer_list<NamedQuery> queries)
{
  std::vector<Statement> out;
  out.reserve(queries.size());
  for (const auto& q : queries) {
    auto s = db.prepare(q.sql, q.name);
    if (!s) {
      return fail(std::move(s).error());
    }
    out.push_back(std::move(*s));
  }
  return out;
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

Result<StatementInfo> Database::describe(std::string_view sql, std::string_view name)
{
  // SQLiteCpp keeps its sqlite3_stmt private: prepare a second, raw handle.
  sqlite3_stmt* raw = nullptr;
  const int rc =
      sqlite3_prepare_v2(m_db->getHandle(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
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
