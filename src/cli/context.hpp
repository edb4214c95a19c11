// What every command receives instead of globals: where the database is,
// where to print, what time it is (injected so tests and golden files are
// deterministic; docs/architecture.md, "Conventions"), the global options and whether the user
// asked to stop.
#pragma once

#include "util/display_stream.hpp"
#include "util/result.hpp"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>

namespace rfdb::cli {

struct Context {
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  Context(std::string db, std::ostream& out_sink, std::ostream& err_sink, Clock clock, bool terminal)
      : db_path(std::move(db)), out(out_sink), err(err_sink), now(std::move(clock)), out_is_terminal(terminal)
  {
  }

  std::string db_path; // resolved: --db, else $RFDB_DB, else ./rfdb.sqlite
  std::ostream& out;   // results (stdout)
  std::ostream& err;   // progress, warnings and errors (stderr)
  Clock now;
  bool out_is_terminal = false; // chooses table vs json output when --format is not given
  // Polled between runs by long commands (ingest); true once the user asked
  // to stop after the run in progress (a first SIGINT or SIGTERM). Empty =
  // never. Tests inject their own.
  std::function<bool()> interrupted;
  // Polled inside a run; true once the user asked to stop at once (a second
  // SIGINT or SIGTERM): the run in progress is rolled back. Empty = never.
  std::function<bool()> aborted;
  // Handle SIGINT and SIGTERM for the duration of long commands (process runs only).
  bool handle_signals = false;
  // Global options (before or after the command).
  std::string format;   // --format given before the command ("" = not given)
  bool quiet = false;   // -q: no progress or summary lines on stderr
  bool verbose = false; // -v: say which database is opened and how
  // The escaping of `out` (util::DisplayEscaper, installed by run_with):
  // human text by default, so stored text never reaches the terminal raw
  // from any command; resolve_format switches it off for a machine format
  // (json, csv, md, python), which quotes in its own way. Null: `out` is
  // printed as written (a caller capturing a sub-command's JSON).
  util::DisplayEscaper* out_escaper = nullptr;
};

// A parsed command ready to run. Every `run_*` command function has this
// shape: the exit code of a command that ran to its end (0, or e.g. 1 from
// `check` finding problems, 130 or 143 when interrupted), or the Error that stopped
// it, which cli::run_with reports once ("rfdb: error: <command>: …") and
// maps to its exit code.
using Runner = std::function<Result<int>()>;

} // namespace rfdb::cli
