// What every command receives instead of globals: where the database is,
// where to print, and what time it is (injected so tests and golden files
// are deterministic; STYLE.md rule 7).
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>

namespace rfdb::cli {

struct Context {
  std::string db_path; // resolved: --db, else $RFDB_DB, else ./rfdb.sqlite
  std::ostream& out;   // results (stdout)
  std::ostream& err;   // progress, warnings and errors (stderr)
  std::function<std::chrono::system_clock::time_point()> now;
  bool out_is_terminal = false; // chooses human vs json defaults where documented
};

// A parsed command ready to run; returns the process exit code.
using Runner = std::function<int()>;

} // namespace rfdb::cli
