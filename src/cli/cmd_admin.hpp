// Daily tools: `retract RUN --reason`, `restore RUN`, `export`, `check`,
// `migrate`.
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct RetractOptions {
  std::string run_id;
  std::string reason;
};
void add_retract_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_retract(const RetractOptions& opts, Context& ctx);

struct RestoreOptions {
  std::string run_id;
};
void add_restore_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_restore(const RestoreOptions& opts, Context& ctx);

struct ExportOptions {
  std::string
      format; // csv | json | table ("" = by -o's extension, else the global --format, else by terminal)
  std::string output; // empty = stdout
  // --raw: write stored files back instead of the attempt rows.
  bool raw = false;
  std::string run_id; // RUN (id or unique prefix); --raw only
  bool all = false;   // --all: every run and the knowledge files; --raw only
  std::string out;    // --out DIR; --raw only
  bool force = false; // --force: overwrite existing files; --raw only
};
void add_export_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_export(const ExportOptions& opts, Context& ctx);

struct CheckOptions {
  std::string format; // table | json ("" = the global --format, else by terminal)
};
void add_check_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_check(const CheckOptions& opts, Context& ctx);

// `rfdb migrate`: back the database up with VACUUM INTO, then upgrade its schema.
struct MigrateOptions {};
void add_migrate_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_migrate(const MigrateOptions& opts, Context& ctx);

} // namespace rfdb::cli
