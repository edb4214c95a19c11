// Internal to store/: the interface each database backend (SQLite, PostgreSQL)
// implements behind store::Database and store::Statement (see database.hpp).
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rfdb::store::detail {

// One prepared statement of one backend. Binds take the parameter name with
// its ':' (":run_id"); exec and step reset the statement when they finish
// (the last row, or an error). Column readers throw on an unknown column
// name (a programming error), as SQLiteCpp does.
class StatementImpl {
public:
  StatementImpl() = default;
  StatementImpl(const StatementImpl&) = delete;
  StatementImpl& operator=(const StatementImpl&) = delete;
  virtual ~StatementImpl() = default;

  virtual Result<void> bind_null(const char* name) = 0;
  virtual Result<void> bind_int(const char* name, std::int64_t value) = 0;
  virtual Result<void> bind_double(const char* name, double value) = 0;
  virtual Result<void> bind_text(const char* name, std::string_view value) = 0;
  virtual Result<void> bind_blob(const char* name, std::string_view bytes) = 0;

  virtual Result<int> exec() = 0;
  virtual Result<bool> step() = 0;
  virtual void reset() noexcept = 0;

  [[nodiscard]] virtual bool is_null(int col) const = 0;
  [[nodiscard]] virtual bool is_number(int col) const = 0;
  [[nodiscard]] virtual std::int64_t get_int(int col) const = 0;
  [[nodiscard]] virtual double get_double(int col) const = 0;
  [[nodiscard]] virtual std::string get_text(int col) const = 0;
  // The text form without a copy where the backend keeps it (valid until the
  // next step or reset); a NULL reads as an empty view.
  [[nodiscard]] virtual std::string_view get_text_view(int col) const = 0;
  // The column or nullopt for NULL; backends may read both in one call.
  [[nodiscard]] virtual std::optional<std::string_view> get_opt_text_view(int col) const
  {
    return is_null(col) ? std::nullopt : std::optional<std::string_view>(get_text_view(col));
  }
  [[nodiscard]] virtual std::optional<double> get_opt_double(int col) const
  {
    return is_null(col) ? std::nullopt : std::optional<double>(get_double(col));
  }
  [[nodiscard]] virtual std::optional<std::int64_t> get_opt_int(int col) const
  {
    return is_null(col) ? std::nullopt : std::optional<std::int64_t>(get_int(col));
  }
  [[nodiscard]] virtual std::string get_blob(int col) const = 0;
  [[nodiscard]] virtual int column_count() const = 0;
  [[nodiscard]] virtual std::string column_name(int col) const = 0;
  [[nodiscard]] virtual int index_of(const char* col) const = 0;
};

// One connection of one backend.
class DatabaseImpl {
public:
  DatabaseImpl() = default;
  DatabaseImpl(const DatabaseImpl&) = delete;
  DatabaseImpl& operator=(const DatabaseImpl&) = delete;
  virtual ~DatabaseImpl() = default;

  [[nodiscard]] virtual Backend backend() const = 0;
  // `sql` is already the backend's text (Database::prepare picks it).
  virtual Result<std::unique_ptr<StatementImpl>> prepare(std::string_view sql, std::string_view name) = 0;
  virtual Result<void> exec(std::string_view sql, std::string_view name) = 0;
  virtual Result<StatementInfo> describe(std::string_view sql, std::string_view name) = 0;
  // Start the write transaction Database::begin_immediate documents.
  virtual Result<void> begin_write() = 0;
  // True while a transaction is open on the connection.
  [[nodiscard]] virtual bool in_transaction() const = 0;
  [[nodiscard]] virtual std::int64_t last_insert_rowid() const = 0;
  [[nodiscard]] virtual int schema_version() const = 0;
};

} // namespace rfdb::store::detail
