// `rfdb restore RUN`: undo `rfdb retract` for a run.
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct RestoreOptions {
  std::string run_id; // or any unique prefix
};
void add_restore_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_restore(const RestoreOptions& opts, Context& ctx);

} // namespace rfdb::cli
