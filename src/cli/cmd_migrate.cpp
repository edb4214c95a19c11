// `rfdb migrate` (see cli/cmd_migrate.hpp): options → store::migrate_database → one line.
#include "cli/cmd_migrate.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "store/database.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>

namespace rfdb::cli {

Result<int> run_migrate(const MigrateOptions& /*opts*/, Context& ctx)
{
  auto report = store::migrate_database(ctx.db_path);
  const std::string shown = store::display_name(ctx.db_path);
  if (!report) {
    return fail(std::move(report).error().with_context(shown));
  }
  if (report->created) {
    fmt::print(ctx.out, "created {} at schema version {}\n", shown, report->to_version);
  } else if (report->from_version == report->to_version) {
    fmt::print(ctx.out, "{} is at schema version {}: nothing to do\n", shown, report->to_version);
  } else if (report->backup.empty()) { // PostgreSQL: no backup (pg_dump takes one)
    fmt::print(ctx.out, "migrated {} from schema version {} to {}\n", shown, report->from_version,
               report->to_version);
  } else {
    fmt::print(ctx.out, "migrated {} from schema version {} to {}; the old file is kept as {}\n", ctx.db_path,
               report->from_version, report->to_version, report->backup);
  }
  return 0;
}

void add_migrate_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<MigrateOptions>();
  auto* cmd = app.add_subcommand("migrate", "Upgrade the database to this rfdb's schema (backup first)");
  cmd->footer("Before changing anything, the database is copied with SQLite's VACUUM INTO to\n"
              "PATH.v<OLD_VERSION>.bak (a free name is chosen if that exists). A database\n"
              "that does not exist is created empty. Older rfdb binaries cannot read the\n"
              "upgraded file; a database newer than this rfdb, or not an rfdb database, is\n"
              "refused untouched (exit 3).\n\n"
              "Example:\n  rfdb --db /shared/team.sqlite migrate");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_migrate(*opts, ctx); }; });
}

} // namespace rfdb::cli
