// `rfdb priors`: options → one calibrate::*_from_store call (priors, --explain, or the
// two dates of --compare-*) → render (see cli/cmd_priors.hpp).
#include "cli/cmd_priors.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/observation_table.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/priors_coherence.hpp"
#include "calibrate/priors_compare.hpp"
#include "calibrate/priors_format.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/noise.hpp"
#include "domain/version.hpp"
#include "domain/vocab.hpp"
#include "store/evidence.hpp"
#include "store/runs.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <memory>
#include <set>

namespace rfdb::cli {

namespace {

// Options → calibration parameters. Errors: usage.
Result<calibrate::PriorsParams> make_params(const PriorsOptions& opts)
{
  calibrate::PriorsParams p;
  RFDB_TRY_ASSIGN(p.level, calibrate::parse_priors_level(opts.by));
  if (!opts.confidence_weights.empty()) {
    RFDB_TRY_ASSIGN(p.confidence_weights, calibrate::parse_confidence_weights(opts.confidence_weights));
  }
  p.prior_strength = opts.prior_strength;
  p.transfer_strength = opts.transfer_strength;
  p.include_parity_fail = opts.include_parity_fail;
  p.include_biased_profiler = opts.include_biased_profiler;
  p.shift_weighting =
      opts.since_shift ? calibrate::ShiftWeighting::since_shift : calibrate::ShiftWeighting::down_weight;
  p.half_life_days = opts.half_life_days;
  p.as_of = opts.as_of;
  p.stack = opts.stack;
  if (!opts.since.empty()) {
    p.since = opts.since;
  }
  return p;
}

// The as_of of the "before" side of a comparison: the date itself, or the
// day before --compare-since (its runs are the new ones).
std::string compare_date(const PriorsOptions& opts)
{
  if (!opts.compare_as_of.empty()) {
    return opts.compare_as_of;
  }
  const auto day = util::parse_iso_date(opts.compare_since);
  return day ? util::format_iso_date(*day - std::chrono::days{1}) : opts.compare_since;
}

// The runs whose stack satisfies every `--stack` spec (retracted ones
// included: retraction is applied downstream). Errors: a malformed spec; db.
Result<std::set<std::string, std::less<>>>
runs_with_stack(store::Database& db, const std::vector<std::string>& specs, const Context& ctx)
{
  store::RunFilter filter;
  filter.include = store::IncludeRetracted::yes;
  for (const auto& text : specs) {
    auto spec = domain::parse_stack_spec(text);
    if (!spec) {
      return fail(std::move(spec).error().with_hint("e.g. rfdb priors --stack 'vllm>=0.26'"));
    }
    filter.stack.push_back(std::move(*spec));
  }
  RFDB_TRY(warn_unstated_stack_packages(db, filter.stack, ctx));
  std::vector<store::RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, store::list_runs(db, filter));
  std::set<std::string, std::less<>> ids;
  for (const auto& r : runs) {
    ids.insert(r.run_id);
  }
  return ids;
}

} // namespace

Result<int> run_priors(const PriorsOptions& opts, Context& ctx)
{
  RFDB_TRY(check_date_window(opts.since, "--since", opts.as_of, "--as-of"));
  auto params = make_params(opts);
  if (!params) {
    return fail(params.error());
  }
  const bool comparing = !opts.compare_as_of.empty() || !opts.compare_since.empty();
  auto format_name = comparing ? resolve_format(ctx, opts.format, {"json", "table"})
                               : resolve_format(ctx, opts.format, {"json", "table", "csv", "md", "python"});
  if (!format_name) {
    return fail(format_name.error());
  }
  auto format = calibrate::parse_priors_format(*format_name);
  if (!format) {
    return fail(format.error());
  }
  // --explain prints its text unless JSON is asked for by name.
  const std::string& explain_format = !opts.format.empty() ? opts.format : ctx.format;
  if (!opts.explain.empty() && !explain_format.empty() && explain_format != "json" &&
      explain_format != "table") {
    return fail(ErrorCode::usage,
                fmt::format("--format {} is not available with --explain; choose one of json, table",
                            explain_format));
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  store::EvidenceFilter filter;
  if (!opts.since.empty()) {
    filter.since = opts.since;
  }
  if (!opts.stack.empty()) {
    RFDB_TRY_ASSIGN(filter.run_ids, runs_with_stack(*db, opts.stack, ctx));
  }
  if (!opts.explain.empty()) {
    // --explain lists each attempt with its kernel and lever: the full rows.
    auto key = calibrate::parse_priors_key(opts.explain);
    if (!key) {
      return fail(key.error());
    }
    auto explained = calibrate::explain_priors_from_store(*db, filter, *params, *key);
    if (!explained) {
      return fail(explained.error());
    }
    fmt::print(ctx.out, "{}",
               explain_format == "json" ? calibrate::render_explain_json(explained->key, explained->children)
                                        : calibrate::render_explain(explained->key, explained->children));
    return 0;
  }
  // Everything else reads the materialized observation rows, compactly.
  if (comparing) {
    auto both = calibrate::compute_priors_at_two_dates(*db, filter, *params, compare_date(opts));
    if (!both) {
      return fail(both.error());
    }
    const auto rows = calibrate::compare_priors(both->before, both->after);
    fmt::print(ctx.out, "{}",
               domain::is(*format_name, domain::OutputFormat::json)
                   ? calibrate::render_compare_json(both->before, both->after, rows)
                   : calibrate::render_compare_table(both->before, both->after, rows));
    return 0;
  }
  auto result = calibrate::compute_priors_from_store(*db, filter, *params);
  if (!result) {
    return fail(result.error());
  }
  fmt::print(ctx.out, "{}", calibrate::render_priors(*result, *format));
  return 0;
}

void add_priors_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<PriorsOptions>();
  auto* cmd = app.add_subcommand("priors",
                                 "Calibrated target_eff priors per op class (and gfx, regime) from outcomes");
  // Checked by calibrate::parse_priors_level: CLI11's IsMember would list the
  // comma-holding values as one unreadable set.
  cmd->add_option("--by", opts->by, "Finest key level: class | class,gfx | class,gfx,regime")
      ->type_name("LEVEL");
  cmd->add_option("--format", opts->format,
                  "json | table | csv | md | python (default: table on a terminal, json otherwise)")
      ->check(one_of({"json", "table", "csv", "md", "python"}));
  cmd->add_option("--as-of", opts->as_of,
                  "Evaluate as of DATE (default: newest run date); ages for --half-life")
      ->check(iso_date_validator());
  cmd->add_option("--since", opts->since, "Only evidence from runs on or after DATE")
      ->check(iso_date_validator());
  cmd->add_option("--half-life", opts->half_life_days, "Time decay: weight × 0.5^(age_days / DAYS)")
      ->type_name("DAYS")
      ->check(positive_number());
  cmd->add_option(
         "--prior-strength", opts->prior_strength,
         fmt::format("k: weight of the parent value of target_eff (default {:g})", domain::k_prior_strength))
      ->type_name("K")
      ->check(non_negative_number());
  cmd->add_option(
         "--transfer-strength", opts->transfer_strength,
         fmt::format("k_t: the e2e transfer ratio's shrink toward 1, (k_t + n*m)/(k_t + n) (default {:g})",
                     domain::k_transfer_prior_strength))
      ->type_name("K")
      ->check(non_negative_number());
  cmd->add_option("--confidence-weights", opts->confidence_weights,
                  "Observation weight per verdict confidence (default high=1,medium=0.6,low=0.25)")
      ->type_name("high=W,medium=W,low=W");
  cmd->add_option("--stack", opts->stack,
                  "Only evidence from runs whose stack satisfies SPEC, e.g. 'vllm>=0.26' (repeatable, all "
                  "must hold; PEP 440 order, dev builds before their release; a run lacking the package "
                  "does not match)")
      ->type_name("SPEC")
      ->check(non_empty("a spec such as 'vllm>=0.26'"))
      ->check(stack_spec_validator());
  cmd->add_flag("--include-parity-fail", opts->include_parity_fail,
                "Count attempts whose output parity failed (for a parity check known to be too strict)");
  cmd->add_flag("--include-biased-profiler", opts->include_biased_profiler,
                fmt::format("Count observations resting on a measured roofline flagged "
                            "profiler_hbm_undercount (rocprof-compute before {} on {} under-counts HBM "
                            "bytes; left out by default)",
                            domain::k_hbm_fixed_profiler_version, domain::k_hbm_undercount_gfx));
  cmd->add_flag("--since-shift", opts->since_shift,
                "Use only the evidence after the newest detected shift of each key (default: weigh the "
                "evidence before it down)");
  cmd->add_option("--explain", opts->explain,
                  "List every observation behind CLASS[:GFX[:REGIME]] and the arithmetic (text; JSON with "
                  "--format json)")
      ->type_name("KEY")
      ->check(non_empty("a key CLASS[:GFX[:REGIME]]"));
  auto* compare_as_of = cmd->add_option("--compare-as-of", opts->compare_as_of,
                                        "Show each value as of DATE next to its value now, with the change")
                            ->check(iso_date_validator());
  auto* compare_since = cmd->add_option("--compare-since", opts->compare_since,
                                        "Show each value before DATE's runs next to its value now")
                            ->check(iso_date_validator());
  compare_as_of->excludes(compare_since);
  compare_as_of->excludes("--explain");
  compare_since->excludes("--explain");
  cmd->footer(fmt::format(R"(The estimator (docs/estimator.md has the full rules and a worked example):
  observation  an attempt whose isolated speedup s > {iso_win:g} (noise band), whose output
               parity did not fail, and whose prediction is usable (not suspect, not
               dispatch-bound, headroom known, 0 < roofline_pct <= 1); e = min(1,
               roofline_pct x s), or the measured post-roofline efficiency of this attempt.
               e > {infeasible:g} before clamping counts as infeasible and as a contradiction.
  weight       high 1.0, medium 0.6, low 0.25, x 0.5^(age/half-life) with --half-life,
               x {before_shift:g} for a run before the newest detected shift of the observation's
               class or class:gfx (a step in its runs' e, docs/estimator.md "Shifts")
  estimate     q = weighted 75th percentile of e, W = total weight,
               shrink(p, W, q) = (k*p + W*q)/(k + W); each observation counts once on the
               path from the seed: class = shrink(seed, class); class:gfx =
               shrink(shrink(seed, class minus gfx), gfx); likewise one level down
  interval     90 % bootstrap, 1000 resamples, fixed seed (reproducible); from 500
               observations (500 runs for the e2e transfer) its large-sample limit, computed
               without resampling (--explain says which)
  e2e transfer per op_class x regime: x = clamp(d/c, -1, 2), c = pct_gpu_time x (1 - 1/s);
               below 2 runs ratio 1 (raw Amdahl ceiling), else (k_t + n*m)/(k_t + n) with m
               the lower c-weighted median of x, n the runs and k_t --transfer-strength
               ({transfer:g}, not --prior-strength), capped at 1 below {breadth} runs; multiply
               expected_e2e_gain_pct by it. Its interval is the ratio's uncertainty, not a
               prediction interval.
  keys         case-insensitive; MI300X/MI325X mean gfx942, MI350X/MI355X gfx950; a key
               without evidence shows its parent's value and the nearest keys that have some

JSON fields: docs/json.md.

Examples:
  rfdb priors --format table
  rfdb priors --by class,gfx --format md
  rfdb priors --format python > target_eff.py
  rfdb priors --explain attn:MI355X:decode
  rfdb priors --explain gemm --format json | jq .children   # why gemm is above both of its GPUs
  rfdb priors --half-life 180 --as-of 2026-12-01
  rfdb priors --stack 'vllm>=0.26' --stack 'rocm==7.1.2'   # evidence from that stack only
  rfdb priors --since-shift                   # only evidence after each key's newest shift
  rfdb priors --compare-as-of 2026-07-31      # what the runs since then changed)",
                          fmt::arg("iso_win", 1.0 + domain::k_iso_noise),
                          fmt::arg("infeasible", domain::k_infeasible_e),
                          fmt::arg("before_shift", domain::k_before_shift_weight),
                          fmt::arg("transfer", domain::k_transfer_prior_strength),
                          fmt::arg("breadth", domain::k_transfer_breadth_runs)));
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_priors(*opts, ctx); }; });
}

} // namespace rfdb::cli
