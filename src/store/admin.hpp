// Database-wide tools: integrity check, tabular export and the named
// queries of queries/ that `rfdb query` runs.
#pragma once

#include "store/database.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// A result set as text cells (NULL → nullopt), for rendering by the CLI.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  // Per cell: true when SQLite stored a number (INTEGER or REAL), so JSON
  // output can emit a number instead of a string.
  std::vector<std::vector<bool>> numeric;
};

struct CheckReport {
  int schema_version = 0;
  int newest_schema_version = 0;
  std::vector<std::string> integrity; // "ok" when healthy
  std::vector<std::string> foreign_key_violations;
  std::vector<std::string> orphans; // "attempts: 2"
  [[nodiscard]] bool ok() const;
};

// PRAGMA integrity_check, foreign_key_check, schema version and orphan rows.
Result<CheckReport> check(Database& db);

// True when `sql` starts (after comments) with SELECT or WITH.
bool is_read_only(std::string_view sql);

// Names of the read-only queries `rfdb query` accepts (queries/*.sql stems).
std::vector<std::string> named_queries();

// Run queries/<name>.sql, binding `params` (":name" → value) by name.
// Errors: not_found for an unknown name (hint lists them), db on SQL errors
// (e.g. a parameter the query needs was not given).
Result<Table> run_named_query(Database& db, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& params);

} // namespace rfdb::store
