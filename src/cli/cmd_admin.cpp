#include "cli/cmd_admin.hpp"

#include "cli/app.hpp"
#include "cli/cmd_query.hpp"
#include "cli/common.hpp"
#include "ingest/evidence_check.hpp"
#include "store/admin.hpp"
#include "store/runs.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>

namespace rfdb::cli {

int run_retract(const RetractOptions& opts, Context& ctx)
{
  if (opts.reason.find_first_not_of(" \t\n") == std::string::npos) {
    return report_error(ctx, "retract",
                        make_error(ErrorCode::usage, "--reason must say why the run is retracted"));
  }
  auto db = open_for_write(ctx);
  if (!db) {
    return report_error(ctx, "retract", db.error());
  }
  auto r = store::retract_run(*db, opts.run_id, opts.reason, util::format_iso_timestamp(ctx.now()));
  if (!r) {
    return report_error(ctx, "retract", r.error());
  }
  fmt::print(ctx.out, "retracted {}: {}\n", opts.run_id, opts.reason);
  return 0;
}

void add_retract_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RetractOptions>();
  auto* cmd =
      app.add_subcommand("retract", "Exclude a run from priors and the playbook (kept; undo with restore)");
  cmd->add_option("RUN", opts->run_id, "Run id")->required();
  cmd->add_option("--reason", opts->reason, "Why the run's evidence should not be used")->required();
  cmd->footer("Example:\n  rfdb retract e2e_x_20260101_000000_1_a --reason \"box was not quiet\"");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_retract(*opts, ctx); }; });
}

int run_restore(const RestoreOptions& opts, Context& ctx)
{
  auto db = open_for_write(ctx);
  if (!db) {
    return report_error(ctx, "restore", db.error());
  }
  auto r = store::restore_run(*db, opts.run_id);
  if (!r) {
    return report_error(ctx, "restore", r.error());
  }
  fmt::print(ctx.out, "restored {}\n", opts.run_id);
  return 0;
}

void add_restore_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RestoreOptions>();
  auto* cmd = app.add_subcommand("restore", "Undo `rfdb retract` for a run");
  cmd->add_option("RUN", opts->run_id, "Run id")->required();
  cmd->footer("Example:\n  rfdb restore e2e_x_20260101_000000_1_a");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_restore(*opts, ctx); }; });
}

int run_export(const ExportOptions& opts, Context& ctx)
{
  auto db = open_for_read(ctx);
  if (!db) {
    return report_error(ctx, "export", db.error());
  }
  auto table = store::run_named_query(*db, "export_attempts", {});
  if (!table) {
    return report_error(ctx, "export", table.error());
  }
  if (opts.output.empty()) {
    print_table(*table, opts.format, ctx.out);
    return 0;
  }
  std::ofstream file(opts.output, std::ios::binary);
  print_table(*table, opts.format, file);
  file.close();
  if (!file) {
    return report_error(ctx, "export", make_error(ErrorCode::io, "cannot write " + opts.output));
  }
  fmt::print(ctx.err, "wrote {} attempt rows to {}\n", table->rows.size(), opts.output);
  return 0;
}

void add_export_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand(
      "export", "Export every attempt with its prediction and outcome (the calibration rows)");
  cmd->add_option("--format", opts->format, "Output format")->check(CLI::IsMember({"csv", "json"}));
  cmd->add_option("-o,--output", opts->output, "Write to FILE instead of stdout")->type_name("FILE");
  cmd->footer("Example:\n  rfdb export --format csv -o attempts.csv");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_export(*opts, ctx); }; });
}

int run_check(const CheckOptions& opts, Context& ctx)
{
  std::error_code ec;
  if (ctx.db_path != ":memory:" && !std::filesystem::exists(ctx.db_path, ec)) {
    return report_error(ctx, "check",
                        make_error(ErrorCode::not_found, "no database at " + ctx.db_path)
                            .with_hint("pass --db PATH or set RFDB_DB; `rfdb ingest` creates the database"));
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return report_error(ctx, "check", db.error());
  }
  auto report = store::check(*db);
  if (!report) {
    return report_error(ctx, "check", report.error());
  }
  auto evidence = ingest::check_evidence(*db);
  if (!evidence) {
    return report_error(ctx, "check", evidence.error());
  }
  const bool ok = report->ok() && evidence->empty();
  if (opts.format == "json") {
    auto disagreements = nlohmann::ordered_json::array();
    for (const auto& d : *evidence) {
      disagreements.push_back({{"run_id", d.run_id},
                               {"attempt", d.attempt_key},
                               {"file", d.file},
                               {"pointer", d.pointer},
                               {"field", d.field},
                               {"attempt_value", d.attempt_value},
                               {"source_value", d.source_value}});
    }
    nlohmann::ordered_json j{{"ok", ok},
                             {"schema_version", report->schema_version},
                             {"newest_schema_version", report->newest_schema_version},
                             {"integrity", report->integrity},
                             {"foreign_key_violations", report->foreign_key_violations},
                             {"orphans", report->orphans},
                             {"evidence_disagreements", disagreements}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(ctx.out, "schema version   {} (this rfdb: {})\n", report->schema_version,
               report->newest_schema_version);
    fmt::print(ctx.out, "integrity        {}\n", fmt::join(report->integrity, "; "));
    fmt::print(ctx.out, "foreign keys     {}\n",
               report->foreign_key_violations.empty()
                   ? "ok"
                   : fmt::format("{}", fmt::join(report->foreign_key_violations, "; ")));
    fmt::print(ctx.out, "orphan rows      {}\n",
               report->orphans.empty() ? "none" : fmt::format("{}", fmt::join(report->orphans, "; ")));
    fmt::print(ctx.out, "evidence         {}\n",
               evidence->empty() ? "ok" : fmt::format("{} disagreeing source(s)", evidence->size()));
    for (const auto& d : *evidence) {
      fmt::print(ctx.out, "  {} {}: {}{} says {} = {}, the attempt has {}\n", d.run_id, d.attempt_key, d.file,
                 d.pointer.empty() ? "" : "#" + d.pointer, d.field, d.source_value, d.attempt_value);
    }
    fmt::print(ctx.out, "{}\n", ok ? "ok" : "PROBLEMS FOUND");
  }
  return ok ? 0 : 1;
}

void add_check_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand("check", "Check the database: integrity, foreign keys, schema version, and "
                                          "that every attempt agrees with the files it cites");
  cmd->add_option("--format", opts->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  cmd->footer("Exit 0 when healthy, 1 when a problem is found.\n\nExample:\n  rfdb --db team.sqlite check "
              "--format json");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_check(*opts, ctx); }; });
}

} // namespace rfdb::cli
