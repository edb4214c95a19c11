// The SQLite backend: SQLiteCpp statements bound by name, read by column (see sqlite_backend.hpp).
#include "store/sqlite_backend.hpp"

#include "store/sqlite_error.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <memory>
#include <sqlite3.h>
#include <string>
#include <utility>
#include <vector>

namespace rfdb::store::detail {

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

namespace {

class SqliteStatement final : public StatementImpl {
public:
  SqliteStatement(std::unique_ptr<SQLite::Statement> stmt, std::string name)
      : m_stmt(std::move(stmt)), m_name(std::move(name))
  {
  }

  // A name that is not a parameter binds through SQLiteCpp by name, which
  // throws its "out of range" error.
  Result<void> bind_null(const char* name) override
  {
    return guard(name, [&] {
      const int i = index(name);
      i > 0 ? m_stmt->bind(i) : m_stmt->bind(name);
    });
  }
  Result<void> bind_int(const char* name, std::int64_t value) override
  {
    return guard(name, [&] {
      const int i = index(name);
      i > 0 ? m_stmt->bind(i, value) : m_stmt->bind(name, value);
    });
  }
  Result<void> bind_double(const char* name, double value) override
  {
    return guard(name, [&] {
      const int i = index(name);
      i > 0 ? m_stmt->bind(i, value) : m_stmt->bind(name, value);
    });
  }
  Result<void> bind_text(const char* name, std::string_view value) override
  {
    return guard(name, [&] {
      const int i = index(name);
      if (i <= 0) {
        m_stmt->bind(name, std::string(value));
        return;
      }
      std::string& kept = kept_value(i);
      kept.assign(value);
      m_stmt->bindNoCopy(i, kept);
    });
  }
  Result<void> bind_blob(const char* name, std::string_view bytes) override
  {
    return guard(name, [&] {
      const int i = index(name);
      if (i <= 0) {
        m_stmt->bind(name, bytes.data(), static_cast<int>(bytes.size()));
        return;
      }
      std::string& kept = kept_value(i);
      kept.assign(bytes);
      m_stmt->bindNoCopy(i, kept.data(), static_cast<int>(kept.size()));
    });
  }

  Result<int> exec() override
  {
    try {
      const int changed = m_stmt->exec();
      reset();
      return changed;
    } catch (const std::exception& e) {
      Error err = error(e);
      reset();
      return fail(std::move(err));
    }
  }

  Result<bool> step() override
  {
    try {
      const bool row = m_stmt->executeStep();
      if (!row) {
        reset(); // ready for the next binding, as documented
      }
      return row;
    } catch (const std::exception& e) {
      Error err = error(e);
      reset();
      return fail(std::move(err));
    }
  }

  void reset() noexcept override
  {
    try {
      m_stmt->reset();
      m_stmt->clearBindings();
    } catch (const std::exception&) {
      // reset() reports the previous step's error again; it was already returned.
    }
  }

  [[nodiscard]] bool is_null(int col) const override { return m_stmt->isColumnNull(col); }
  [[nodiscard]] bool is_number(int col) const override
  {
    const auto column = m_stmt->getColumn(col);
    return column.isInteger() || column.isFloat();
  }
  [[nodiscard]] std::int64_t get_int(int col) const override { return m_stmt->getColumn(col).getInt64(); }
  [[nodiscard]] double get_double(int col) const override { return m_stmt->getColumn(col).getDouble(); }
  [[nodiscard]] std::string get_text(int col) const override { return m_stmt->getColumn(col).getString(); }
  [[nodiscard]] std::string_view get_text_view(int col) const override
  {
    const auto column = m_stmt->getColumn(col);
    const char* text = column.getText(); // before getBytes: the length is of the text form
    return {text, static_cast<std::size_t>(column.getBytes())};
  }
  [[nodiscard]] std::string get_blob(int col) const override
  {
    const auto column = m_stmt->getColumn(col);
    const auto* bytes = static_cast<const char*>(column.getBlob());
    return bytes == nullptr ? std::string() : std::string(bytes, static_cast<std::size_t>(column.getBytes()));
  }
  [[nodiscard]] int column_count() const override { return m_stmt->getColumnCount(); }
  [[nodiscard]] std::string column_name(int col) const override { return m_stmt->getColumnName(col); }
  [[nodiscard]] int index_of(const char* col) const override { return m_stmt->getColumnIndex(col); }

private:
  Error error(const std::exception& e) const
  {
    if (const auto* se = dynamic_cast<const SQLite::Exception*>(&e)) {
      return from_sqlite(*se, fmt::format("query {}", m_name));
    }
    return make_error(ErrorCode::db, e.what()).with_context(fmt::format("query {}", m_name));
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
    const int i = m_stmt->getIndex(name);
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

  template <typename Fn> Result<void> guard(const char* name, Fn&& fn)
  {
    try {
      fn();
      return {};
    } catch (const std::exception& e) {
      return fail(error(e).with_context(fmt::format("bind {}", name)));
    }
  }

  std::unique_ptr<SQLite::Statement> m_stmt;
  std::string m_name;
  std::vector<std::pair<std::string, int>> m_index; // parameter name → index, as first bound
  std::size_t m_next = 0;                           // where index() looks first
  std::vector<std::unique_ptr<std::string>> m_kept; // by parameter index
};

} // namespace

SqliteDatabase::SqliteDatabase(std::unique_ptr<SQLite::Database> db) : m_db(std::move(db)) {}
SqliteDatabase::~SqliteDatabase() = default;

Result<std::unique_ptr<StatementImpl>> SqliteDatabase::prepare(std::string_view sql, std::string_view name)
{
  try {
    return std::unique_ptr<StatementImpl>(std::make_unique<SqliteStatement>(
        std::make_unique<SQLite::Statement>(*m_db, std::string(sql)), std::string(name)));
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, fmt::format("prepare {}", name)));
  }
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
