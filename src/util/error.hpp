// rfdb::Error — the one error value that travels between modules.
//
// Modules return Result<T> (see util/result.hpp); context is added as an
// error travels outward ("ingest e2e_x/profile/round_0/profile_topN.json",
// "/top_kernels/3/pct_gpu_time"), and cli::run renders it once as
//   rfdb: error: <command>: <context…>: <message>
//   hint: <hint>
// The exit code follows from `code` (see exit_code_for).
#pragma once

#include <string>
#include <vector>

namespace rfdb {

enum class ErrorCode {
  usage,           // bad command line (exit 2)
  invalid_input,   // an input file or value was rejected (exit 1)
  not_found,       // a named run, class, file or query does not exist (exit 1)
  schema_too_new,  // database written by a newer rfdb (exit 3)
  needs_migration, // database at an older schema: `rfdb migrate` (exit 1)
  not_rfdb_db,     // file is not an rfdb database (exit 3)
  db,              // SQLite or PostgreSQL failure (exit 1)
  retry,           // PostgreSQL serialization failure or deadlock: run the transaction again (exit 1)
  io,              // filesystem failure (exit 1)
  internal,        // a bug (exit 1)
  disk_full,       // the database's disk is full: SQLITE_FULL, PostgreSQL SQLSTATE 53100 (exit 1)
  read_only,       // the database cannot be written: a read-only file or directory (exit 1)
  interrupted,     // the user stopped the work (a second Ctrl-C, SIGTERM); rolled back (exit 130)
};

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
  // Outermost context first, e.g. {"e2e_run", "profile/round_0/profile_topN.json"}.
  std::vector<std::string> context;
  std::string hint;

  // Return a copy with `ctx` prepended as the new outermost context.
  [[nodiscard]] Error with_context(std::string ctx) const&;
  [[nodiscard]] Error with_context(std::string ctx) &&;
  // Return a copy with the hint set.
  [[nodiscard]] Error with_hint(std::string h) &&;

  // "<ctx1>: <ctx2>: <message>", without the "rfdb: error:" prefix.
  [[nodiscard]] std::string describe() const;
};

// Build an error of `code` with `message`.
Error make_error(ErrorCode code, std::string message);

// Process exit code for an error: usage → 2, schema_too_new/not_rfdb_db → 3,
// interrupted → 130, everything else → 1.
int exit_code_for(ErrorCode code);

// Stable lower-case name of a code ("invalid_input"), used in --format json.
const char* to_string(ErrorCode code);

} // namespace rfdb
