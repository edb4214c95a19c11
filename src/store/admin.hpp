// Database-wide tools: integrity check, the named queries of queries/ that
// `rfdb query` runs (with their parameters and descriptions), and run-id
// prefixes.
#pragma once

#include "domain/roofline.hpp"
#include "store/database.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rfdb::store {

// A result set as text cells (NULL → nullopt), for rendering by the CLI.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  // Per cell: true when SQLite stored a number (INTEGER or REAL), so JSON
  // output can emit a number instead of a string.
  std::vector<std::vector<bool>> numeric;
  // Per column: true when the query declares it holds JSON text (`-- json:`
  // line in its header), so JSON output embeds the value instead of a string.
  std::vector<bool> json;
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

// A stored file version that is not what its row records, or whose
// rel_path is not a normalized relative path.
struct StoredFileProblem {
  std::int64_t source_id = 0;
  std::optional<std::string> run_id; // nullopt: a knowledge file
  std::string rel_path;
  bool current = true; // false: a superseded version (kept for history and re-derivation)
  std::string what;    // "frame" (does not decompress), "size", "sha256" or "path"
  std::string detail;
};

// A stored compression dictionary that does not load, or loads with
// another id than its row's.
struct DictionaryProblem {
  std::int64_t dict_id = 0;
  std::string detail;
  // Stored frames (current or superseded) that name this dictionary. 0: no
  // stored text needs it any more (every one was stored again without it),
  // so it is reported but is not a problem (StoredCheck::ok).
  std::int64_t frames = 0;
};

struct StoredCheck {
  std::int64_t files = 0;                             // stored file versions verified
  std::int64_t dictionaries = 0;                      // dictionaries checked
  std::vector<StoredFileProblem> file_problems;       // by source_id
  std::vector<DictionaryProblem> dictionary_problems; // by dict_id
  // The source_ids whose text did not verify (not those with only a path
  // problem), sorted: the evidence check skips them.
  std::vector<std::int64_t> damaged;
  // Stored file versions that verified (files minus those with a problem).
  std::int64_t verified = 0;
  // No file problem and no damaged dictionary that a stored frame names.
  [[nodiscard]] bool ok() const
  {
    return file_problems.empty() && std::all_of(dictionary_problems.begin(), dictionary_problems.end(),
                                                [](const DictionaryProblem& d) { return d.frames == 0; });
  }
};

// Decompress every stored file version (current and superseded) and compare
// its size and sha256 with its row (store/sources.hpp, verify_frame); check
// each stored rel_path is a normalized relative path and each dictionary
// loads with its row's id. One pass over sources, one file in memory at a
// time; `progress` (may be empty) is called with the versions done and the
// total now and then. Errors: db.
Result<StoredCheck> check_stored_files(Database& db,
                                       const std::function<void(std::int64_t, std::int64_t)>& progress = {});

// One query `rfdb query` accepts, described from its file's header comment:
// the leading `--` lines are the description, a `-- json: a, b` line names
// the columns holding JSON text; a parameter is optional when the SQL tests
// `:name IS NULL`. A parameter named for a rule (domain::k_rule_parameters)
// is no user parameter: run_named_query binds the rule's value.
struct QueryInfo {
  std::string name;
  std::string description;
  std::vector<std::string> parameters; // every named user parameter, in order of appearance
  std::vector<std::string> rules;      // the rule parameters it names, in order of appearance
  std::vector<std::string> optional;   // those the query accepts as NULL (not given)
  std::vector<std::string> json_columns;
  bool read_only = false; // sqlite3_stmt_readonly
};

// The read-only queries/*.sql, by name: those SQLite reports read-only
// (sqlite3_stmt_readonly) when prepared against the current schema.
Result<std::vector<QueryInfo>> named_queries();

// Run queries/<name>.sql, binding `params` ("name" → value) by name; integers
// and reals bind as numbers. Each rule parameter the query names (:iso_win_min,
// :e2e_noise_pct, :head_min_pct) is bound from `rules` (the domain's values
// unless a caller passes others), so no query holds a threshold. Errors: usage
// for an unknown query (the hint lists them), a query that is not read-only,
// an unknown parameter or a missing required one (the message names it, the
// hint lists the query's parameters); db on SQL errors.
Result<Table> run_named_query(Database& db, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& params,
                              std::span<const domain::RuleParameter> rules = domain::k_rule_parameters);

// How many candidates an ambiguous run-id prefix lists.
inline constexpr std::size_t k_prefix_candidates = 10;
// Run ids equal to or starting with `prefix`, the exact match first, then by
// id; at most k_prefix_candidates + 1.
Result<std::vector<std::string>> runs_with_prefix(Database& db, const std::string& prefix);

} // namespace rfdb::store
