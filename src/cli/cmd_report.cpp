#include "cli/cmd_report.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "ingest/files.hpp"
#include "report/cards.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "report/playbook.hpp"
#include "store/evidence.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

namespace rfdb::cli {

namespace {

namespace fs = std::filesystem;

Result<void> write_text(const fs::path& path, const std::string& text)
{
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return fail(ErrorCode::io, "cannot write " + path.string());
  }
  return {};
}

// Write the generated cards into `dir`: unchanged files are not touched, cards
// no longer backed by evidence are archived in place (never deleted).
Result<report::CardSyncPlan> sync_cards(const fs::path& dir, const std::vector<report::CardFile>& generated)
{
  std::vector<report::CardFile> existing;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".md") {
        auto content = ingest::read_file(entry.path());
        if (!content) {
          return fail(std::move(content).error());
        }
        existing.push_back({entry.path().filename().string(), std::move(*content)});
      }
    }
  }
  auto plan = report::plan_card_sync(generated, existing);
  for (const auto& f : plan.writes) {
    RFDB_TRY(write_text(dir / f.file_name, f.content));
  }
  return plan;
}

// A --gfx naming no stored run is an error that lists the GPUs that exist.
Result<void> check_gfx(store::Database& db, const std::string& gfx)
{
  std::vector<store::RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, store::list_runs(db, store::IncludeRetracted::no));
  std::set<std::string> gpus;
  for (const auto& r : runs) {
    if (r.gfx) {
      gpus.insert(report::normalize_gfx(*r.gfx));
    }
  }
  if (gpus.count(report::normalize_gfx(gfx)) != 0) {
    return {};
  }
  return fail(make_error(ErrorCode::not_found, "no runs on " + gfx)
                  .with_hint(gpus.empty() ? "the database holds no runs yet"
                                          : fmt::format("GPUs with runs: {}", fmt::join(gpus, ", "))));
}

} // namespace

int run_report(const ReportOptions& opts, Context& ctx)
{
  auto db = open_for_read(ctx);
  if (!db) {
    return report_error(ctx, "report", db.error());
  }
  // Evidence from every GPU: the priors pool all of it (the same numbers
  // `rfdb priors` prints) and the analysis narrows the rest to --gfx.
  store::EvidenceFilter filter;
  if (!opts.since.empty()) {
    filter.since = opts.since;
  }
  std::optional<std::string> gfx_scope;
  if (!opts.gfx.empty()) {
    if (auto ok = check_gfx(*db, opts.gfx); !ok) {
      return report_error(ctx, "report", ok.error());
    }
    gfx_scope = report::normalize_gfx(opts.gfx);
  }
  auto evidence = store::load_evidence(*db, filter);
  if (!evidence) {
    return report_error(ctx, "report", evidence.error());
  }
  calibrate::PriorsParams params;
  params.as_of = opts.as_of;
  params.since = filter.since;
  params.level = calibrate::PriorsLevel::op_class_gfx;
  auto priors = calibrate::compute_priors(calibrate::observations_from(evidence->attempts), params);
  if (!priors) {
    return report_error(ctx, "report", priors.error());
  }
  // Default as-of: the newest date the evidence holds, imported findings
  // included, so knowledge newer than the last run is not hidden.
  std::string as_of = !opts.as_of.empty() ? opts.as_of : priors->as_of.value_or("");
  if (opts.as_of.empty()) {
    for (const auto& r : evidence->runs) {
      as_of = std::max(as_of, r.run_date.value_or(""));
    }
    for (const auto& f : evidence->findings) {
      if (util::parse_iso_date(f.last_seen)) {
        as_of = std::max(as_of, f.last_seen);
      }
    }
  }
  const auto input = report::build_report_input(*evidence, *priors, as_of, filter.since, gfx_scope);
  const auto analysis = report::analyze(input);
  const std::string markdown = report::render_playbook(analysis);
  if (opts.output.empty()) {
    fmt::print(ctx.out, "{}", markdown);
  } else if (auto w = write_text(opts.output, markdown); !w) {
    return report_error(ctx, "report", w.error());
  } else {
    fmt::print(ctx.err, "playbook written to {} ({} runs, as of {})\n", opts.output,
               analysis.scoped.runs.size(), analysis.as_of.empty() ? "n/a" : analysis.as_of);
  }
  if (!opts.cards_dir.empty()) {
    auto plan = sync_cards(opts.cards_dir, report::render_cards(analysis));
    if (!plan) {
      return report_error(ctx, "report", plan.error());
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
  cmd->add_option("-o,--output", opts->output, "Write the playbook to FILE (default: stdout)")
      ->type_name("FILE");
  cmd->add_option("--as-of", opts->as_of,
                  "Date the playbook is written for (default: the newest date in the evidence, runs and "
                  "imported findings)")
      ->check(iso_date_validator());
  cmd->add_option("--since", opts->since, "Only evidence from runs on or after DATE")
      ->check(iso_date_validator());
  cmd->add_option("--gfx", opts->gfx, "Only runs on this GPU, e.g. gfx950");
  cmd->add_option("--cards", opts->cards_dir,
                  "Also write one learned card per finding plus INDEX.md into DIR")
      ->type_name("DIR");
  cmd->footer(R"(Sections: target_eff priors, Calibration, Routing quality, What works (tiers ★/★★/★★★,
at most 40 lines), Cautions, Saturated heads, and a quadrant chart of the newest run.
The same database and --as-of give byte-identical output.

Examples:
  rfdb report -o playbook.md
  rfdb report --gfx gfx950 --as-of 2026-12-01
  rfdb report -o playbook.md --cards knowledge/learned)");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_report(*opts, ctx); }; });
}

} // namespace rfdb::cli
