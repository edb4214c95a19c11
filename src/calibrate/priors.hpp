// The calibration engine behind `rfdb priors` (docs/estimator.md, issue 9).
//
// Input: raw attempt rows joined to the prediction that chose them
// (`Observation`). The engine decides which rows are valid observations of a
// class's ceiling (never an attempt whose output parity failed), keeps the
// reason for every row it rejects, and shrinks the weighted 75th percentile
// q of achieved efficiency toward the seed, counting each observation once
// on the path from the seed to a key:
//   shrink(p, W, q) = (k·p + W·q) / (k + W)   (an empty set leaves p as is)
//   v(c)     = shrink(seed, W_c, q_c)
//   v(c,g)   = shrink(shrink(seed, W_{c−g}, q_{c−g}), W_g, q_g)
//   v(c,g,r) = shrink(shrink(shrink(seed, W_{c−g}, q_{c−g}), W_{g−r}, q_{g−r}), W_r, q_r)
// where c−g is the class's observations minus gfx g's, g−r gfx g's minus
// regime r's; clamped to (0, 1]. A key whose evidence equals its parent's has
// its parent's value. Keys printed: the four classes always; at the gfx level
// every gfx that has an observation (or an infeasible attempt) in any class,
// for every class; at the regime level every regime seen on that gfx. A key
// without observations shows its parent's value (source "parent"; a class
// without any: "seed"). An observation's weight w is confidence × decay,
// split among the observations of its run that rest on one prediction (same
// class, kernel and prediction snapshot): each of k such weighs w / k.
// Intervals resample the key's RUNS (a drawn run brings all its
// observations) 1000× with a fixed seed and the parent held at its point
// estimate; a key with fewer than 2 runs has none (interval_reason "one
// run"). From k_large_sample_units runs they are that percentile
// bootstrap's large-sample limit, computed without resampling
// (large_sample_quantile_interval, stats.hpp), and W is held at its point
// value too.
//
// The e2e transfer per op_class × regime: x = clamp(d / c, −1, 2) with
// c = pct_gpu_time × (1 − 1/s); below 2 distinct runs the ratio is 1 (the raw
// Amdahl ceiling), else the lower c-weighted median m of x shrunk toward 1:
// (k_t + n·m) / (k_t + n), n = distinct runs, k_t = transfer_strength
// (3, a separate parameter from prior_strength), capped at 1 below
// domain::k_transfer_breadth_runs runs.
//
// Pure: no I/O, no clock; the same inputs and `as_of` give the same result
// bit for bit, whatever the input order. Retracted runs are the caller's to
// drop (its store query).
#pragma once

#include "calibrate/shifts.hpp"
#include "calibrate/stats.hpp"
#include "domain/observation_row.hpp"
#include "domain/prediction.hpp"
#include "domain/roofline.hpp"
#include "util/result.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::calibrate {

// One attempt joined to its prediction snapshot, as the store query yields it.
struct Observation {
  std::string run_id;
  std::string run_date;   // "YYYY-MM-DD"
  std::string round;      // profile round label: '0' | 'config' | 'head' | '1' | …
  std::string short_name; // kernel
  std::string lever;
  std::string op_class;                   // gemm | moe | attn | elementwise | unknown
  std::string gfx;                        // "" is grouped as "unknown"
  std::string regime;                     // decode | prefill | …; "" is grouped as "unknown"
  std::optional<double> isolated_speedup; // × over baseline
  std::optional<double> e2e_delta_pct;    // percent, measured e2e throughput delta
  domain::Prediction prediction;          // the verdict the attempt was made on
  std::optional<double> post_efficiency;  // fraction: measured post roofline_efficiency_pct / 100
  std::string output_parity;              // pass | fail | n/a | "" (integrate_result / sweep trial)
  std::string reject_reason; // the integrate reason's reject word: parity_regression, no_engagement, …
  // Its prediction or post efficiency is a measured verdict flagged
  // profiler_hbm_undercount (rocprof-compute < 3.5 on gfx950: e reads low).
  bool profiler_hbm_undercount = false;
  // Not an attempt: a head the run never tried (skip gate, or saturated with
  // no attempt), a right-censored observation: its efficiency was at least
  // prediction.roofline_pct (docs/estimator.md, "Censored observations").
  domain::CensorReason censored = domain::CensorReason::none;
};

// True when the attempt's output was wrong: parity `fail`, or a gate reason
// parity_regression / accuracy_regression / output_corruption. Its speed says
// nothing about how close a correct kernel gets to the roofline.
bool parity_failed(const Observation& attempt);
// (The same rule on the two fields is domain::parity_failed.)

// The group of a gfx or regime: "" is grouped as "unknown". A view of `value`
// or of a literal.
std::string_view group_name(std::string_view value);
// The position of `op_class` in domain::k_seeded_op_classes (the report order
// of the calibrated classes); its size for any other class.
std::size_t seeded_rank(std::string_view op_class);

// Finest key level printed (`--by`).
enum class PriorsLevel { op_class, op_class_gfx, op_class_gfx_regime };

// Confidence weights (`--confidence-weights`), each ≥ 0.
struct ConfidenceWeights {
  double high = 1.0;
  double medium = 0.6;
  double low = 0.25;
};

// What the priors do with the evidence from before a detected shift of its key
// (docs/estimator.md, "Shifts"): weigh it down by before_shift_weight (the
// default), or drop it (`--since-shift`, exclusion reason before_shift).
enum class ShiftWeighting { down_weight, since_shift };
const char* to_string(ShiftWeighting weighting); // "down_weight" | "since_shift"

// A fixed default so bootstrap intervals are reproducible.
constexpr std::uint64_t k_default_bootstrap_seed = 0x7266'6462'7072'6973ULL; // "rfdbpris"

struct PriorsParams {
  double prior_strength = domain::k_prior_strength; // k ≥ 0, in units of observation weight
  // k_t ≥ 0 of the transfer ratio's shrink toward 1, (k_t + n·m) / (k_t + n);
  // not prior_strength (docs/estimator.md, "Why k = 2").
  double transfer_strength = domain::k_transfer_prior_strength;
  double quantile = 0.75;                 // of e, in (0, 1]
  double iso_noise = domain::k_iso_noise; // isolated noise band (fraction): s > 1 + iso_noise is a win
  double e2e_noise_pct = domain::k_e2e_noise_pct; // e2e noise band (percent): d ≤ −this is a loss
  ConfidenceWeights confidence_weights;
  bool include_parity_fail = false; // --include-parity-fail: count parity-failed attempts anyway
  // --include-biased-profiler: count observations resting on a measured
  // verdict flagged profiler_hbm_undercount anyway (left out by default).
  bool include_biased_profiler = false;
  std::optional<double> half_life_days; // > 0; none = no time decay
  std::string as_of;                    // "YYYY-MM-DD"; "" = newest run_date in the input
  std::optional<std::string> since;     // "YYYY-MM-DD": drop attempts of earlier runs
  PriorsLevel level = PriorsLevel::op_class;
  int bootstrap_resamples = 1000; // ≥ 0; 0 = no intervals
  std::uint64_t seed = k_default_bootstrap_seed;
  double interval = 0.90; // central bootstrap interval, in (0, 1)
  // `--stack` specs as given (reported in the JSON parameters when set); the
  // caller limits the evidence to the runs satisfying them (store::EvidenceFilter::run_ids).
  std::vector<std::string> stack;
  // The detected shifts the weights respect (detect_shifts; the store's
  // callers fill them): an observation of a run before the newest shift of
  // its class or of its class × gfx weighs × before_shift_weight, or is left
  // out under since_shift. Empty: no shift handling.
  std::vector<Shift> shifts;
  ShiftWeighting shift_weighting = ShiftWeighting::down_weight;
  double before_shift_weight = domain::k_before_shift_weight; // in [0, 1]
};

// Why an attempt is not an observation; checked in this order, first match wins.
enum class ExclusionReason {
  bad_run_date,        // run_date is not YYYY-MM-DD
  before_since,        // run_date < since
  after_as_of,         // run_date > as_of (not yet known at as_of)
  unknown_class,       // op_class outside gemm|moe|elementwise|attn: never calibrated
  parity_fail,         // output parity failed: speed on wrong output is no evidence
  no_speedup,          // isolated speedup missing, non-finite or ≤ 0
  below_noise,         // s ≤ 1 + iso_noise: no evidence about the ceiling
  suspect,             // prediction flagged suspect (infeasible byte/FLOP model)
  dispatch_bound,      // dispatch-bound launch: no roofline verdict
  unknown_headroom,    // headroom_class unknown/empty
  bad_roofline_pct,    // roofline_pct missing or outside (0, 1]
  bad_post_efficiency, // measured post efficiency present but non-finite or ≤ 0
  unknown_confidence,  // confidence not low|medium|high
  biased_profiler,     // rests on a verdict flagged profiler_hbm_undercount (--include-biased-profiler)
  infeasible,          // e > 1.05 before clamping: counted as infeasible + contradiction
  zero_weight,         // weight is 0 (confidence weight 0 or decay underflow)
  before_shift,        // --since-shift: a run before the newest shift of its class (or class × gfx)
};
inline constexpr int k_exclusion_reason_count = 17;

// Stable snake_case name ("below_noise").
const char* to_string(ExclusionReason reason);
const char* to_string(PriorsLevel level); // "class", "class,gfx", "class,gfx,regime"

// The calibrated classes and their seed target_eff: domain::k_seeded_op_classes
// and domain::seed_target_eff (domain/roofline.hpp).

// Outcome of judging one attempt (see evaluate_attempt).
struct AttemptEvaluation {
  std::optional<ExclusionReason> excluded; // none = a valid observation
  double e = 0.0;                          // achieved efficiency, clamped to ≤ 1 (0 when not computed)
  bool e_from_post = false;                // e came from the measured post roofline
  double weight = 0.0;        // confidence × decay (× before_shift_weight before a shift; 0 when excluded
                              // before weighting); split in --explain's lists
  bool before_shift = false;  // the run lies before the newest shift of the attempt's key
  bool contradiction = false; // s > attainable × (1 + iso_noise), or infeasible
  bool censored = false;      // a right-censored observation: e is its lower bound (roofline_pct)
};

// Judge one attempt against params whose as_of is already resolved (a valid
// date). docs/estimator.md: e = post efficiency if measured, else min(1, roofline_pct × s).
AttemptEvaluation evaluate_attempt(const Observation& attempt, const PriorsParams& params);

enum class PriorSource { seed, calibrated, parent };

// How an interval was computed: Monte-Carlo percentile bootstrap
// (bootstrap_resamples resamples, fixed seed) below k_large_sample_units
// resampled units, else that bootstrap's large-sample limit
// (large_sample_quantile_interval, stats.hpp).
enum class IntervalMethod { bootstrap, large_sample };
const char* to_string(PriorSource source); // "seed" | "calibrated" | "parent"

// One key's calibrated target_eff; see row_key below for its name.
struct PriorRow {
  std::string op_class;
  std::optional<std::string> gfx;    // none above the gfx level
  std::optional<std::string> regime; // none above the regime level
  double seed = 0.0;                 // the class seed (for every level)
  double parent = 0.0;               // value shrunk toward (the seed at class level)
  double target_eff = 0.0;           // fraction (0, 1]
  int n = 0;                         // observations
  int runs = 0;                      // distinct runs behind the observations
  double weight = 0.0;               // W = Σ w (split weights)
  std::optional<double> statistic;   // q, the weighted quantile of e (none when n = 0)
  std::optional<Interval> interval;  // bootstrap interval over runs (none when runs < 2)
  // Why there is no interval: "" when there is one, "one run" (a single run's
  // observations say nothing about run-to-run spread), "no observations",
  // "not computed" (bootstrap_resamples = 0).
  std::string interval_reason;
  IntervalMethod interval_method = IntervalMethod::bootstrap; // large_sample from runs ≥ k_large_sample_units
  int measured = 0;       // observations whose prediction is measured (roofline-v1)
  int analytic = 0;       // observations whose prediction is analytic (or unknown)
  int contradictions = 0; // observations beating the prediction + infeasible attempts
  int infeasible = 0;     // attempts with e > 1.05 before clamping
  int censored = 0;       // right-censored observations that entered q at their bound (counted in n)
  std::optional<std::string> last_seen; // newest run_date among the observations
  PriorSource source = PriorSource::seed;
  // For a key without observations (source parent): the keys at its level
  // that have evidence and differ from it in one field, with their values.
  std::vector<std::pair<std::string, double>> nearest;
};

// "moe", "moe:gfx950" or "moe:gfx950:decode": the --explain key of a row,
// also the label that seeds the row's bootstrap stream.
std::string row_key(const PriorRow& row);

// The e2e transfer's rows (the rule: calibrate/e2e_transfer.hpp).
enum class TransferSource { raw, calibrated };
const char* to_string(TransferSource source); // "raw" | "calibrated"

struct TransferRow {
  std::string op_class;
  std::string regime;
  int n = 0;                       // distinct runs
  int attempts = 0;                // attempts behind the ratio
  double median_ratio = 1.0;       // × of the Amdahl ceiling that reached e2e
  std::optional<double> statistic; // m, the lower c-weighted median of x (none when n < 2)
  TransferSource source = TransferSource::raw;
  std::optional<Interval> interval;                           // none when n < 2
  IntervalMethod interval_method = IntervalMethod::bootstrap; // large_sample from n ≥ k_large_sample_units
  int sign_flips = 0;                                         // s > 1 + iso_noise but d ≤ −e2e_noise_pct
  int beyond_ceiling = 0; // d > c: the Amdahl share missed a second-order effect
  // median_ratio > 1 from fewer than domain::k_transfer_breadth_runs runs is capped
  // at 1.0 (the raw ceiling); `capped` says so, statistic keeps m.
  bool capped = false;
};

struct ExclusionCount {
  ExclusionReason reason = ExclusionReason::below_noise;
  int count = 0;
};

struct PriorsResult {
  std::optional<std::string> as_of;      // resolved; none when the input had no dated attempt
  PriorsParams params;                   // with as_of resolved
  std::vector<PriorRow> priors;          // pre-order: class, its gfx rows, each with its regimes
  std::vector<TransferRow> e2e_transfer; // class order, then regime
  int attempts = 0;                      // input rows that are attempts (censored heads are not)
  int observations = 0;                  // attempts that are observations
  // Censored heads (never tried, e ≥ roofline_pct) not excluded: observations of a lower bound,
  // counted apart from the attempts (docs/estimator.md, "Censored observations").
  int censored = 0;
  std::vector<ExclusionCount> excluded; // nonzero counts, in ExclusionReason order
};

// Calibrate target_eff priors and the e2e transfer from attempt rows.
// Errors (invalid_input): a parameter out of range, or as_of/since not YYYY-MM-DD.
Result<PriorsResult> compute_priors(std::span<const Observation> attempts, const PriorsParams& params);

// The estimator's input in compact form: calibrate/observation_table.hpp.
class ObservationTable;

// compute_priors over a table (a name of its own: `compute_priors({}, p)` stays
// unambiguous): the same result, bit for bit, as over the
// Observations it was filled from.
Result<PriorsResult> compute_priors_from_table(const ObservationTable& attempts, const PriorsParams& params);

// The shifts in each class's and each class × gfx's achieved efficiencies
// (calibrate/shifts.hpp) over the attempts inside params' date window: each
// run's value is the weighted median of its observations' e (confidence
// weights split per prediction, no time decay, no shift weighting), the
// series in (run_date, run_id) order. Ordered by class (report order), the
// class's own shifts first, then gfx, then date; a class seen on one GPU only
// is searched once, as the class (its class × gfx series is the same).
// `attribution` is left empty.
// Errors: as compute_priors.
Result<std::vector<Shift>> detect_shifts(std::span<const Observation> attempts, const PriorsParams& params,
                                         const ShiftParams& shift_params = {});
Result<std::vector<Shift>> detect_shifts_from_table(const ObservationTable& attempts,
                                                    const PriorsParams& params,
                                                    const ShiftParams& shift_params = {});

// The newest shift in `shifts` that applies to an observation of `op_class`
// on `gfx` (grouped) from run (run_date, run_id): a shift of its class or of
// its class × gfx whose first run after comes later. nullptr when none.
const Shift* applying_shift(std::span<const Shift> shifts, std::string_view op_class, std::string_view gfx,
                            std::string_view run_date, std::string_view run_id);

// A key "CLASS[:GFX[:REGIME]]" for --explain.
struct PriorsKey {
  std::string op_class;
  std::optional<std::string> gfx;
  std::optional<std::string> regime;
};
// The regimes a key may name.
inline constexpr std::array<std::string_view, 4> k_regimes = {"decode", "prefill", "mixed", "unknown"};

// Parse "moe", "moe:gfx950", "moe:gfx950:decode", case-insensitively, with a
// device name accepted for the gfx (MI300X → gfx942). Error (usage): unknown
// class, a gfx that is not gfx-shaped, a regime outside k_regimes, an empty
// part or more than three parts; the message names the valid values.
Result<PriorsKey> parse_priors_key(std::string_view text);
// Parse --by: "class" | "class,gfx" | "class,gfx,regime". Error (usage) otherwise.
Result<PriorsLevel> parse_priors_level(std::string_view text);
// Parse --confidence-weights "high=1,medium=0.6,low=0.25" (any subset, any
// order; unspecified keep their defaults). Error (usage): bad key or value < 0.
Result<ConfidenceWeights> parse_confidence_weights(std::string_view text);

// An attempt with its evaluation, for --explain.
struct ExplainedAttempt {
  Observation attempt;
  AttemptEvaluation evaluation;
};

// One shrinkage step on the path from the seed to a key: `from` shrunk by a
// set of observations (none: unchanged) gives `to`.
struct ShrinkStep {
  std::string set;                       // "moe minus gfx950", "gfx950 minus decode", "moe:gfx950:decode"
  double from = 0.0;                     // fraction
  int n = 0;                             // observations in the set
  int runs = 0;                          // distinct runs in the set
  double weight = 0.0;                   // W of the set
  std::optional<double> statistic;       // q of the set (none when empty)
  double to = 0.0;                       // fraction
  std::vector<std::string> observations; // "RUN kernel e=… w=…" of the set
};

// Everything --explain prints for one key.
struct KeyExplanation {
  PriorsKey key;
  std::optional<std::string> as_of;
  PriorsParams params;                                 // with as_of resolved
  std::vector<PriorRow> chain;                         // class row, then gfx row, then regime row
  std::vector<ShrinkStep> steps;                       // the key's path from the seed, step by step
  std::vector<std::pair<std::string, double>> nearest; // keys with evidence one field away (key without any)
  std::vector<std::string> notes;             // e.g. a gfx with no runs, answered from the class level
  std::vector<ExplainedAttempt> observations; // contributing to the key, chronological
  std::vector<ExplainedAttempt> excluded;     // attempts matching the key that are not
  // Right-censored observations of the key (heads never tried), apart from
  // `observations`; each entered the key's own q at its bound when that
  // bound is above censor_threshold (the q of the key's uncensored
  // observations, else its parent value), and was left out otherwise.
  std::vector<ExplainedAttempt> censored;
  double censor_threshold = 0.0;
};

// Explain one key: its chain of rows from the class down, every contributing
// observation and every excluded attempt of that key with its reason.
// Errors: as compute_priors.
Result<KeyExplanation> explain_priors(std::span<const Observation> attempts, const PriorsParams& params,
                                      const PriorsKey& key);

} // namespace rfdb::calibrate
