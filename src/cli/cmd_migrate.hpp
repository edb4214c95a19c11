// `rfdb migrate`: back the database up with VACUUM INTO, then upgrade its schema.
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

namespace rfdb::cli {

struct MigrateOptions {};
void add_migrate_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_migrate(const MigrateOptions& opts, Context& ctx);

} // namespace rfdb::cli
