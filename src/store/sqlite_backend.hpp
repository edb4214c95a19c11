// Internal to store/: the SQLite backend behind store::Database. The
// connection is a SQLiteCpp SQLite::Database (opened by database_open.cpp,
// which also sets its PRAGMAs and runs the migrations); statements are
// prepared, bound and stepped through the sqlite3 C API on its handle
// (sqlite3_prepare_v2, sqlite3_bind_*, sqlite3_step), not SQLite::Statement.
#pragma once

#include "store/backend.hpp"

#include <memory>

namespace SQLite {
class Database;
} // namespace SQLite

namespace rfdb::store::detail {

// An SQLite connection; raw() is for database_open.cpp (PRAGMAs, migrations).
class SqliteDatabase final : public DatabaseImpl {
public:
  explicit SqliteDatabase(std::unique_ptr<SQLite::Database> db);
  ~SqliteDatabase() override;

  [[nodiscard]] Backend backend() const override { return Backend::sqlite; }
  Result<std::unique_ptr<StatementImpl>> prepare(std::string_view sql, std::string_view name) override;
  Result<void> exec(std::string_view sql, std::string_view name) override;
  Result<StatementInfo> describe(std::string_view sql, std::string_view name) override;
  Result<void> begin_write() override;
  [[nodiscard]] bool in_transaction() const override;
  [[nodiscard]] std::int64_t last_insert_rowid() const override;
  [[nodiscard]] int schema_version() const override;

  [[nodiscard]] SQLite::Database& raw() { return *m_db; }

private:
  std::unique_ptr<SQLite::Database> m_db;
};

} // namespace rfdb::store::detail
