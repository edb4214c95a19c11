// `rfdb report`: options → report::generate (the whole pipeline) → the
// playbook on stdout or -o FILE, and the learned cards with --cards DIR.
#include "cli/cmd_report.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "report/card_files.hpp"
#include "report/pipeline.hpp"
#include "util/safe_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <memory>
#include <optional>

namespace rfdb::cli {

namespace {

Result<void> write_output(const std::filesystem::path& path, const std::string& text)
{
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
  }
  return util::write_file_atomically(path, text);
}

} // namespace

Result<int> run_report(const ReportOptions& opts, Context& ctx)
{
  RFDB_TRY(check_date_window(opts.since, "--since", opts.as_of, "--as-of"));
  // The cards directory follows all the evidence as of the newest run: cards
  // from a narrowed report would archive the others (other GPUs, older runs)
  // and drop them from INDEX.md, and an --as-of moves which findings are
  // fresh enough to be shown, so the next plain run would flip them back.
  if (!opts.cards_dir.empty() && (!opts.gfx.empty() || !opts.since.empty() || !opts.as_of.empty())) {
    const char* narrowing = !opts.gfx.empty() ? "--gfx" : !opts.since.empty() ? "--since" : "--as-of";
    return fail(make_error(ErrorCode::usage, fmt::format("--cards cannot be combined with {}", narrowing))
                    .with_hint("the cards directory follows all the evidence as of the newest run: write it "
                               "with `rfdb report --cards DIR`, and narrow the playbook in a separate call"));
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  // `-o -` is stdout, as the other tools of the field take it.
  const std::string output = opts.output == "-" ? std::string() : opts.output;
  const report::ReportRequest request{opts.as_of, opts.since, opts.gfx, !opts.cards_dir.empty()};
  auto generated = report::generate(*db, ctx.db_path, request);
  if (!generated) {
    return fail(generated.error());
  }
  // Check every target before writing anything: a refused one writes nothing.
  if (!output.empty()) {
    RFDB_TRY(refuse_database_target(ctx, output, "-o"));
    if (auto ok = util::check_plain_target(output); !ok) {
      return fail(ok.error());
    }
  }
  std::optional<report::CardSyncPlan> plan;
  if (!opts.cards_dir.empty()) {
    auto planned = report::plan_card_dir(opts.cards_dir, generated->cards);
    if (!planned) {
      return fail(planned.error());
    }
    plan = std::move(*planned);
  }
  if (output.empty()) {
    fmt::print(ctx.out, "{}", generated->playbook);
  } else if (auto w = write_output(output, generated->playbook); !w) {
    return fail(w.error());
  } else {
    fmt::print(ctx.err, "playbook written to {} ({} runs, as of {})\n", output, generated->runs,
               generated->as_of.empty() ? "n/a" : generated->as_of);
  }
  if (plan) {
    if (auto w = report::write_card_dir(opts.cards_dir, *plan); !w) {
      return fail(w.error());
    }
    fmt::print(
        ctx.err, "cards in {}: {} written, {} unchanged, {} archived{}\n", opts.cards_dir,
        plan->writes.size(), plan->unchanged.size(), plan->archived.size(),
        plan->conflicts.empty() ? "" : fmt::format(", {} name conflicts left alone", plan->conflicts.size()));
  }
  return 0;
}

void add_report_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ReportOptions>();
  auto* cmd =
      app.add_subcommand("report", "Generate the backend playbook (markdown) from the stored evidence");
  cmd->add_option("-o,--output", opts->output, "Write the playbook to FILE (default, or -: stdout)")
      ->type_name("FILE")
      ->check(path_validator());
  cmd->add_option("--as-of", opts->as_of,
                  "Date the playbook is written for (default: the newest run date; imported knowledge "
                  "dated after it is shown with its own date)")
      ->check(iso_date_validator());
  cmd->add_option("--since", opts->since, "Only evidence from runs on or after DATE")
      ->check(iso_date_validator());
  cmd->add_option("--gfx", opts->gfx,
                  "Only runs on this GPU: a gfx target (gfx950) or a device name (MI355X)")
      ->type_name("GFX")
      ->transform(gfx_validator());
  cmd->add_option("--cards", opts->cards_dir,
                  "Also write one learned card per finding plus INDEX.md into DIR (all the evidence as of "
                  "the newest run: not with --gfx, --since or --as-of)")
      ->type_name("DIR")
      ->check(path_validator());
  cmd->footer(R"(Sections: a Noise paragraph (the runs' measured e2e spread), target_eff priors, Shifts (steps
in a class's efficiency or e2e transfer, with the stack change between their runs), Calibration,
Routing quality, Would calibration have changed routing? (the newest day's winners ranked under
the stored and the day-before priors, as rfdb rescore), What works (tiers ★/★★/★★★, at most 40
lines), Cautions, Methods and seams, Saturated heads, and a quadrant chart of the newest run. Every section is capped, so the
playbook stays small at any history size.
The same database and --as-of give byte-identical output. Files are written to a temporary
beside the target and renamed over it; a symlink, FIFO or other non-regular file at a target
is refused and nothing is written.

Examples:
  rfdb report -o playbook.md
  rfdb report --gfx gfx950 --as-of 2026-12-01
  rfdb report -o playbook.md --cards knowledge/learned)");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_report(*opts, ctx); }; });
}

} // namespace rfdb::cli
