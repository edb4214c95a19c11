// Statements and connections of either backend: bind by name, read columns by name, transactions.
#include "store/database.hpp"

#include "rfdb_sql.hpp"

#include "store/backend.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rfdb::store {

bool is_postgresql_url(std::string_view db)
{
  return db.starts_with("postgresql://") || db.starts_with("postgres://");
}

std::string display_name(std::string_view db)
{
  if (!is_postgresql_url(db)) {
    return std::string(db);
  }
  // scheme://user:password@host… → scheme://user:***@host…
  const std::size_t start = db.find("://") + 3;
  const std::size_t at = db.find('@', start);
  const std::size_t slash = db.find('/', start);
  if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at)) {
    return std::string(db);
  }
  const std::size_t colon = db.find(':', start);
  if (colon == std::string_view::npos || colon > at) {
    return std::string(db);
  }
  return std::string(db.substr(0, colon + 1)) + "***" + std::string(db.substr(at));
}

// ---- Statement -------------------------------------------------------------

Statement::Statement(std::unique_ptr<detail::StatementImpl> impl, std::string name)
    : m_impl(std::move(impl)), m_name(std::move(name))
{
}
Statement::Statement(Statement&&) noexcept = default;
Statement& Statement::operator=(Statement&&) noexcept = default;
Statement::~Statement() = default;

Statement& Statement::remember(Result<void> bound)
{
  if (!bound && !m_bind_error) {
    m_bind_error = std::move(bound).error();
  }
  return *this;
}

Statement& Statement::bind(const char* name, std::nullopt_t)
{
  return m_bind_error ? *this : remember(m_impl->bind_null(name));
}
Statement& Statement::bind(const char* name, std::int64_t value)
{
  return m_bind_error ? *this : remember(m_impl->bind_int(name, value));
}
Statement& Statement::bind(const char* name, int value)
{
  return bind(name, static_cast<std::int64_t>(value));
}
Statement& Statement::bind(const char* name, double value)
{
  return m_bind_error ? *this : remember(m_impl->bind_double(name, value));
}
Statement& Statement::bind(const char* name, bool value)
{
  return bind(name, static_cast<std::int64_t>(value ? 1 : 0));
}
Statement& Statement::bind(const char* name, std::string_view value)
{
  return m_bind_error ? *this : remember(m_impl->bind_text(name, value));
}
Statement& Statement::bind(const char* name, const std::string& value)
{
  return bind(name, std::string_view(value));
}
Statement& Statement::bind(const char* name, const char* value)
{
  return bind(name, std::string_view(value));
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
Statement& Statement::bind_blob(const char* name, std::string_view bytes)
{
  return m_bind_error ? *this : remember(m_impl->bind_blob(name, bytes));
}

Result<int> Statement::exec()
{
  if (m_bind_error) {
    Error e = std::move(*m_bind_error);
    reset();
    return fail(std::move(e));
  }
  return m_impl->exec();
}

Result<bool> Statement::step()
{
  if (m_bind_error) {
    Error e = std::move(*m_bind_error);
    reset();
    return fail(std::move(e));
  }
  return m_impl->step();
}

void Statement::reset()
{
  m_bind_error.reset();
  m_impl->reset();
}

bool Statement::is_null(int col) const
{
  return m_impl->is_null(col);
}
bool Statement::is_number(int col) const
{
  return m_impl->is_number(col);
}
std::int64_t Statement::get_int(int col) const
{
  return m_impl->get_int(col);
}
double Statement::get_double(int col) const
{
  return m_impl->get_double(col);
}
std::string Statement::get_text(int col) const
{
  return m_impl->get_text(col);
}
std::string Statement::get_blob(int col) const
{
  return m_impl->get_blob(col);
}
std::optional<std::int64_t> Statement::get_opt_int(int col) const
{
  return m_impl->get_opt_int(col);
}
std::optional<double> Statement::get_opt_double(int col) const
{
  return m_impl->get_opt_double(col);
}
std::optional<std::string> Statement::get_opt_text(int col) const
{
  return is_null(col) ? std::nullopt : std::optional<std::string>(get_text(col));
}
std::optional<std::string_view> Statement::get_opt_text_view(int col) const
{
  return m_impl->get_opt_text_view(col);
}
int Statement::index_of(const char* col) const
{
  return m_impl->index_of(col);
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
std::string Statement::get_blob(const char* col) const
{
  return get_blob(index_of(col));
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
  return m_impl->column_count();
}
std::string Statement::column_name(int col) const
{
  return m_impl->column_name(col);
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

Database::Database(std::unique_ptr<detail::DatabaseImpl> impl, std::string path, bool read_only)
    : m_impl(std::move(impl)), m_path(std::move(path)), m_read_only(read_only)
{
}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

namespace {

// The queries/postgresql/ text of query `name`, or `sql` when it has none.
std::string_view postgresql_text(std::string_view sql, std::string_view name)
{
  const auto it = std::lower_bound(sql::k_pg_queries.begin(), sql::k_pg_queries.end(), name,
                                   [](const sql::NamedQuery& q, std::string_view n) { return q.name < n; });
  return it != sql::k_pg_queries.end() && it->name == name ? it->sql : sql;
}

} // namespace

std::string_view Database::query_text(std::string_view sql, std::string_view name) const
{
  return backend() == Backend::postgresql ? postgresql_text(sql, name) : sql;
}

Result<Statement> Database::prepare(std::string_view sql, std::string_view name)
{
  auto impl = m_impl->prepare(query_text(sql, name), name);
  if (!impl) {
    return fail(std::move(impl).error());
  }
  return Statement(std::move(*impl), std::string(name));
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
  return m_impl->exec(sql, name);
}

Result<StatementInfo> Database::describe(std::string_view sql, std::string_view name)
{
  return m_impl->describe(sql, name);
}

Result<Transaction> Database::begin_immediate()
{
  RFDB_TRY(m_impl->begin_write());
  m_write_tx = ++m_write_txs;
  return Transaction(*this);
}

namespace {

// SQLite's PRAGMA data_version: a new value whenever another connection
// committed since the last read; read inside BEGIN, it takes the snapshot.
Result<std::int64_t> data_version(Database& db)
{
  auto s = db.prepare("PRAGMA data_version", "data_version");
  if (!s) {
    return fail(std::move(s).error());
  }
  bool row = false;
  RFDB_TRY_ASSIGN(row, s->step());
  if (!row) {
    return fail(ErrorCode::db, "PRAGMA data_version returned no row");
  }
  const std::int64_t v = s->get_int(0);
  s->reset();
  return v;
}

} // namespace

Result<void> Database::begin_read()
{
  if (backend() == Backend::postgresql) {
    return exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "begin read");
  }
  RFDB_TRY(exec("BEGIN", "begin read"));
  auto v = data_version(*this);
  if (!v) {
    (void)exec("ROLLBACK", "begin read");
    return fail(std::move(v).error());
  }
  m_read_version = *v;
  return {};
}

Result<bool> Database::end_read()
{
  RFDB_TRY(exec("COMMIT", "end read"));
  if (backend() == Backend::postgresql) {
    return true;
  }
  std::int64_t now = 0;
  RFDB_TRY_ASSIGN(now, data_version(*this));
  return now == m_read_version;
}

Result<void> Database::limit_page_cache(int kib)
{
  if (backend() == Backend::postgresql) {
    return {};
  }
  return exec(fmt::format("PRAGMA cache_size = -{}", kib), "cache_size");
}

std::int64_t Database::last_insert_rowid() const
{
  return m_impl->last_insert_rowid();
}

int Database::schema_version() const
{
  return m_impl->schema_version();
}

Backend Database::backend() const
{
  return m_impl->backend();
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
    m_db->m_write_tx = 0;
  }
  return r;
}

void Transaction::rollback() noexcept
{
  if (!m_open) {
    return;
  }
  m_open = false;
  m_db->m_write_tx = 0;
  try {
    if (m_db->m_impl->in_transaction()) {
      (void)m_db->m_impl->exec("ROLLBACK", "rollback");
    }
  } catch (...) {
    // Destructors never throw; the server rolls back on close anyway.
  }
}

} // namespace rfdb::store
