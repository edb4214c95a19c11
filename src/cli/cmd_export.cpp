// `rfdb export` (see cli/cmd_export.hpp): options → the export_attempts query
// (or, with --raw, store::export_stored_files) → the table, CSV or JSON.
#include "cli/cmd_export.hpp"

#include "cli/app.hpp"
#include "cli/cmd_query.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "report/kb_export.hpp"
#include "store/admin.hpp"
#include "store/file_export.hpp"
#include "util/safe_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <sstream>

namespace rfdb::cli {

namespace {

// export's format: explicit, else from -o's extension, else as every command.
Result<std::string> export_format(const ExportOptions& opts, const Context& ctx)
{
  if (opts.format.empty() && ctx.format.empty() && !opts.output.empty()) {
    const auto ext = std::filesystem::path(opts.output).extension().string();
    if (ext == ".csv" || ext == ".json") {
      return ext.substr(1);
    }
    return fail(make_error(ErrorCode::usage, "cannot tell the format of " + opts.output)
                    .with_hint("name the file *.csv or *.json, or pass --format csv|json"));
  }
  return resolve_format(ctx, opts.format, {"table", "csv", "json"});
}

// `rfdb export --raw`: every current file of one run (or of all runs and the
// knowledge files) written back byte-identical under opts.out
// (store::export_stored_files), then a summary line or JSON object.
Result<int> run_export_raw(const ExportOptions& opts, Context& ctx)
{
  if (opts.out.empty() || opts.all == !opts.run_id.empty()) {
    return fail(make_error(ErrorCode::usage, "--raw needs --out DIR and either a RUN or --all")
                    .with_hint("e.g. rfdb export --raw RUN --out DIR, or rfdb export --raw --all --out DIR"));
  }
  if (!opts.output.empty()) {
    return fail(make_error(ErrorCode::usage, "--raw writes files under --out DIR, not -o FILE"));
  }
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  // Ctrl-C or SIGTERM: stop before the next file, remove the staging directory
  // (and the directories made for it), write nothing under --out.
  StopScope stop(ctx);
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  store::FileExportRequest request;
  if (!opts.all) {
    auto run_id = resolve_run(*db, opts.run_id);
    if (!run_id) {
      return fail(run_id.error());
    }
    request.run_id = *run_id;
  }
  request.out = opts.out;
  request.force = opts.force;
  request.interrupted = [&ctx] { return interrupted(ctx); };
  auto written = store::export_stored_files(*db, request);
  if (!written) {
    if (written.error().code != ErrorCode::interrupted) {
      return fail(written.error());
    }
    report_error(ctx, "export", written.error());
    return interrupted_exit_code();
  }
  const auto [runs, files, bytes] = *written;
  if (domain::is(*format, domain::OutputFormat::json)) {
    const nlohmann::ordered_json j{{"out", opts.out}, {"runs", runs}, {"files", files}, {"bytes", bytes}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(ctx.out, "wrote {} files ({} bytes) of {} run(s) under {}\n", files, bytes, runs, opts.out);
  }
  return 0;
}

// `rfdb export --kb DIR`: report::export_kb, then a summary line or JSON object.
Result<int> run_export_kb(const ExportOptions& opts, Context& ctx)
{
  if (opts.raw || opts.all || opts.force || !opts.run_id.empty() || !opts.out.empty() ||
      !opts.output.empty()) {
    return fail(
        make_error(ErrorCode::usage, "--kb DIR goes alone (not with --raw, RUN, --all, --out, --force or -o)")
            .with_hint("e.g. rfdb export --kb kb_store/"));
  }
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  auto summary = report::export_kb(*db, opts.kb);
  if (!summary) {
    return fail(summary.error().with_context("export --kb " + opts.kb));
  }
  const auto& s = *summary;
  if (domain::is(*format, domain::OutputFormat::json)) {
    const nlohmann::ordered_json j{{"store", opts.kb},
                                   {"identities", s.identities},
                                   {"sessions_written", s.sessions_written},
                                   {"sessions_unchanged", s.sessions_unchanged},
                                   {"champions_promoted", s.champions_promoted},
                                   {"champions_kept", s.champions_kept},
                                   {"sessions_removed", s.sessions_removed},
                                   {"champions_removed", s.champions_removed},
                                   {"skipped", s.skipped}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(
        ctx.out,
        "kb store {}: {} identities, {} sessions written, {} unchanged, {} champions promoted, {} kept{}{}\n",
        opts.kb, s.identities, s.sessions_written, s.sessions_unchanged, s.champions_promoted,
        s.champions_kept,
        s.sessions_removed == 0 && s.champions_removed == 0
            ? ""
            : fmt::format(", {} stale sessions removed, {} champions removed", s.sessions_removed,
                          s.champions_removed),
        s.skipped.empty() ? "" : fmt::format(", {} findings skipped", s.skipped.size()));
    if (!ctx.quiet) {
      for (const auto& why : s.skipped) {
        fmt::print(ctx.err, "skipped {}\n", why);
      }
    }
  }
  return 0;
}

} // namespace

Result<int> run_export(const ExportOptions& opts, Context& ctx)
{
  if (!opts.kb.empty()) {
    return run_export_kb(opts, ctx);
  }
  if (opts.raw) {
    return run_export_raw(opts, ctx);
  }
  if (opts.all || opts.force || !opts.run_id.empty() || !opts.out.empty()) {
    return fail(make_error(ErrorCode::usage, "RUN, --all, --out and --force go with --raw")
                    .with_hint("rfdb export --raw RUN --out DIR writes a run's stored files back"));
  }
  RFDB_TRY(refuse_database_target(ctx, opts.output, "-o"));
  auto format = export_format(opts, ctx);
  if (!format) {
    return fail(format.error());
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  auto table = store::run_named_query(*db, "export_attempts", {});
  if (!table) {
    return fail(table.error());
  }
  if (opts.output.empty()) {
    print_table(*table, *format, ctx.out);
    return 0;
  }
  // Written next to the target and renamed over it, as report -o does: a
  // full disk leaves the old file whole; a symlink or FIFO is refused.
  std::ostringstream text;
  print_table(*table, *format, text);
  RFDB_TRY(util::write_file_atomically(opts.output, text.str()));
  if (!ctx.quiet) {
    fmt::print(ctx.err, "wrote {} attempt rows to {}\n", table->rows.size(), opts.output);
  }
  return 0;
}

void add_export_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "Export every attempt with its prediction and outcome (the "
                                           "calibration rows), with --raw the stored files, or with --kb the "
                                           "measured wins as a GEAK kb store");
  cmd->add_option(
         "--format", opts->format,
         "csv | json | table (default: from -o's extension; else table on a terminal, json otherwise); "
         "--raw: table | json summary")
      ->check(one_of({"csv", "json", "table"}));
  cmd->add_option("-o,--output", opts->output, "Write to FILE instead of stdout")
      ->type_name("FILE")
      ->check(path_validator());
  cmd->add_flag("--raw", opts->raw,
                "Write the current version of every stored file back, byte-identical to what was "
                "ingested, to DIR/<run_id>/<rel_path> (knowledge files: DIR/knowledge/<rel_path>)");
  cmd->add_option("RUN", opts->run_id, "--raw: the run (id or any unique prefix of it)");
  cmd->add_flag("--all", opts->all, "--raw: every run, and the knowledge files");
  cmd->add_option("--out", opts->out, "--raw: the directory to write into (created if missing)")
      ->type_name("DIR");
  cmd->add_flag("--force", opts->force,
                "--raw: overwrite files that exist (default: refuse before writing any)");
  cmd->add_option("--kb", opts->kb,
                  "Write the measured positive findings (What works attempts of the runs) as a GEAK local "
                  "kb store under DIR (created if missing; merged into an existing store: only rfdb-* "
                  "sessions are written, champion.json only by GEAK's promotion rule)")
      ->type_name("DIR");
  cmd->footer(
      "Columns: docs/json.md (export) and docs/schema.md (attempts).\n\n"
      "--raw checks every file against the size and sha256 recorded when it was ingested and\n"
      "writes into a temporary directory first: when any file fails, nothing is written (exit 1,\n"
      "naming each damaged file; `rfdb ingest --rehash EVAL_DIR` stores them again).\n\n"
      "Examples:\n  rfdb export -o attempts.csv\n  rfdb export | jq '.[] | select(.op_class == \"attn\")'\n"
      "  rfdb export --raw e2e_Qwen3.5-27B --out restored/\n"
      "  rfdb export --raw --all --out backup/ --format json   # {\"out\", \"runs\", \"files\", \"bytes\"}\n"
      "  rfdb export --kb /shared/geak_kb_store   # docs/kb-export.md; re-running writes nothing new\n"
      "  rfdb export --kb kb/ --format json       # {\"store\", \"identities\", \"sessions_written\", ...}");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_export(*opts, ctx); }; });
}

} // namespace rfdb::cli
