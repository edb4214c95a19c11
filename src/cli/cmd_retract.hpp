// `rfdb retract RUN --reason TEXT`: exclude a run from priors and the playbook
// (kept in the database; `rfdb restore` undoes it).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct RetractOptions {
  std::string run_id; // or any unique prefix
  std::string reason; // why the run's evidence should not be used (not blank)
};
void add_retract_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_retract(const RetractOptions& opts, Context& ctx);

} // namespace rfdb::cli
