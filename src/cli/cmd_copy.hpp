// `rfdb copy --from SRC --to DST`: move a whole store between databases (SQLite or PostgreSQL).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct CopyOptions {
  std::string from;   // the source: a path or a postgresql:// URL, opened read-only
  std::string to;     // the destination: created when missing, refused unless empty
  std::string format; // table | json ("" = the global --format, else by terminal)
};
void add_copy_command(CLI::App& app, Context& ctx, Runner& runner);
// Exit 0: copied, and the copy checks ok with the source's row counts and
// priors; 1: refused (the destination holds data), failed (nothing
// committed) or copied but not verified (the summary says what differs);
// 2: usage; 3: a database that is not rfdb's or is newer than this rfdb.
Result<int> run_copy(const CopyOptions& opts, Context& ctx);

} // namespace rfdb::cli
