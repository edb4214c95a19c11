// `rfdb check`: integrity, foreign keys, schema version, every stored file
// against its recorded size and sha256, and that every attempt agrees with
// the files it cites. Exit 0 when healthy, 1 when a problem is found.
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct CheckOptions {
  std::string format; // table | json ("" = the global --format, else by terminal)
};
void add_check_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_check(const CheckOptions& opts, Context& ctx);

} // namespace rfdb::cli
