#include "cli/app.hpp"

#include "cli/cmd_admin.hpp"
#include "cli/cmd_ingest.hpp"
#include "cli/cmd_priors.hpp"
#include "cli/cmd_query.hpp"
#include "cli/cmd_report.hpp"
#include "cli/cmd_runs.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace rfdb::cli {

namespace {

constexpr const char* k_footer = R"(Examples:
  rfdb ingest exp/e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq
  rfdb runs
  rfdb priors --format md
  rfdb report -o playbook.md

Exit codes: 0 ok, 1 runtime or input error, 2 usage error,
3 database written by a newer rfdb or not an rfdb database.
Database: --db PATH, else $RFDB_DB, else ./rfdb.sqlite.)";

} // namespace

int report_error(Context& ctx, const std::string& command, const Error& e)
{
  fmt::print(ctx.err, "rfdb: error: {}{}\n", command.empty() ? "" : command + ": ", e.describe());
  if (!e.hint.empty()) {
    fmt::print(ctx.err, "hint: {}\n", e.hint);
  }
  return exit_code_for(e.code);
}

int run_with(const std::vector<std::string>& args, Context& ctx, const std::string& env_db)
{
  CLI::App app{"rfdb — experience and calibration store for roofline-guided GPU kernel "
               "optimization",
               "rfdb"};
  app.footer(k_footer);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("rfdb ") + RFDB_VERSION);
  std::string db_flag;
  app.add_option("--db", db_flag, "SQLite database (default: $RFDB_DB, else ./rfdb.sqlite)")
      ->type_name("PATH");

  // The command list, in the order --help shows it (STYLE.md rule 4).
  Runner runner;
  add_ingest_command(app, ctx, runner);
  add_priors_command(app, ctx, runner);
  add_report_command(app, ctx, runner);
  add_runs_command(app, ctx, runner);
  add_show_command(app, ctx, runner);
  add_retract_command(app, ctx, runner);
  add_restore_command(app, ctx, runner);
  add_query_command(app, ctx, runner);
  add_export_command(app, ctx, runner);
  add_check_command(app, ctx, runner);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; everything else is usage.
    const int code = app.exit(e, ctx.out, ctx.err);
    return code == 0 ? 0 : 2;
  }
  ctx.db_path = !db_flag.empty() ? db_flag : (!env_db.empty() ? env_db : "rfdb.sqlite");
  if (!runner) {
    return 0;
  }
  try {
    return runner();
  } catch (const std::exception& e) {
    return report_error(ctx, "", make_error(ErrorCode::internal, e.what()));
  }
}

int run(int argc, char** argv)
{
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    args.emplace_back(argv[i]);
  }
  Context ctx{"", std::cout, std::cerr, [] { return std::chrono::system_clock::now(); },
              isatty(STDOUT_FILENO) != 0};
  const char* env = std::getenv("RFDB_DB");
  try {
    return run_with(args, ctx, env != nullptr ? env : "");
  } catch (const std::exception& e) {
    return report_error(ctx, "", make_error(ErrorCode::internal, e.what()));
  }
}

} // namespace rfdb::cli
