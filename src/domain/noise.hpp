// The noise a run measured, against the fixed bands (docs/playbook.md,
// "Noise measured per run"), and the profiler bias of measured rooflines
// (docs/playbook.md, "Profiler-biased measured verdicts"). Rule values live
// here beside roofline.hpp's fixed bands; no rule value appears outside
// src/domain/ (the lint.rules test checks it).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rfdb::domain {

// The spread (percent) of per-repetition throughputs (tok/s) as
// bench_summarize.py computes it: (max − min) / median × 100; 0 for one
// sample (not "unknown"); nullopt for none or a median ≤ 0.
std::optional<double> spread_pct(std::span<const double> samples);

// The producer (bench_summarize.py) rounds a stated throughput spread to 2
// decimals: a stated and a computed spread (percent) that differ by more
// than this disagree (docs/playbook.md, "Noise measured per run").
inline constexpr double k_spread_rounding_pct = 0.01;
// A stated spread (percent) above this, below 0 or not finite is
// implausible and refused at ingest.
inline constexpr double k_spread_max_pct = 100.0;

// True for the bench roles whose spread is the run's measured noise: the
// reference measurements baseline, validation_base and overlay_ref (a
// candidate's own spread is not the run's: a broken candidate's can be wide).
// queries/report_runs.sql names the same roles.
bool is_reference_bench_role(std::string_view role);

// Which band decided an e2e comparison.
enum class BandSource { fixed, measured };

// The e2e noise band (percent) a run's deltas are judged against.
struct E2eBand {
  double pct = 0.0;
  BandSource source = BandSource::fixed;
};

// The e2e band of a run: its own measured spread (percent; the widest
// throughput_spread_pct of its reference bench summaries: baseline,
// validation base, overlay reference) when that is wider than the fixed
// band `fixed_pct` (k_e2e_noise_pct), else the fixed band. nullopt or a
// non-finite spread → the fixed band. run_e2e_band(0.94).pct == 0.94
// (measured), run_e2e_band(0.3).pct == 0.5 (fixed).
E2eBand run_e2e_band(std::optional<double> measured_spread_pct, double fixed_pct);
E2eBand run_e2e_band(std::optional<double> measured_spread_pct);

// True when an e2e delta (percent) is beyond the band: d > band.pct. A
// +0.94 % win on a run whose measured spread is 0.94 % is not.
bool is_e2e_gain(double delta_pct, const E2eBand& band);

// "measured" | "fixed": the stored and printed name of a BandSource.
std::string_view to_string(BandSource source);

// How an e2e delta stands against a run's band (docs/playbook.md, "Noise
// measured per run"): a loss at d ≤ −k_e2e_noise_pct (the fixed edge, whatever
// the band), beyond when d > band.pct (is_e2e_gain), else inside.
enum class E2eJudgement { beyond, inside, loss };
E2eJudgement judge_e2e(double delta_pct, const E2eBand& band);
// "beyond" | "inside" | "loss".
std::string_view to_string(E2eJudgement judgement);

// The profiler flag of a measured roofline (verdicts.profiler_flag).
inline constexpr std::string_view k_profiler_hbm_undercount = "profiler_hbm_undercount";

// rocprof-compute before this release (ROCm before 7.12) under-counts HBM
// bytes on gfx950 (TCC_BUBBLE: about −25 % of total bytes, −50 % of reads;
// GEAK PR #468), so a measured roofline_pct from it reads low.
inline constexpr std::string_view k_hbm_fixed_profiler_version = "3.5";
inline constexpr std::string_view k_hbm_undercount_gfx = "gfx950";

// True when a measured roofline on `gfx` (normalized, "gfx950") from
// rocprof-compute `tool_version` ("3.4.0", "v3.4", "3.4.0.dev1+g12ab",
// "rocprofiler-compute version: 3.1.1": the first PEP 440 version token,
// domain::find_version) under-counts HBM bytes: gfx is gfx950 and the
// version's release part is below k_hbm_fixed_profiler_version (PEP 440
// order, domain/version.hpp). False for another gfx, a release ≥ 3.5 and a
// text with no version in it (unknown version: not flagged, docs/playbook.md).
// A dev, pre or post build of 3.5 ("3.5.0.dev1") compares as 3.5: the
// release part alone decides, as a `--stack` spec on a plain release does.
bool profiler_undercounts_hbm(std::string_view gfx, std::string_view tool_version);

} // namespace rfdb::domain
