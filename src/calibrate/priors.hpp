// The calibration engine behind `rfdb priors` (DESIGN.md §4, issue 3).
//
// Input: raw attempt rows joined to the prediction that chose them
// (`Observation`). The engine decides which rows are valid observations of a
// class's ceiling, keeps the reason for every row it rejects, and shrinks the
// weighted 75th percentile of achieved efficiency toward a parent value:
//   op_class           → toward the seed,
//   op_class×gfx       → toward the op_class value,
//   op_class×gfx×regime → toward the op_class×gfx value,
//   t = (k·parent + W·q) / (k + W), clamped to (0, 1].
// Keys printed: the four classes always; at the gfx level every gfx that has
// an observation (or an infeasible attempt) in any class, for every class; at
// the regime level every regime seen on that gfx. A key without observations
// shows its parent's value (source "parent"; a class without any: "seed").
// Intervals resample the key's own observations 1000× with a fixed seed and
// the parent held at its point estimate. It also estimates the e2e transfer
// ratio per op_class × regime. Pure: no I/O, no clock; the same inputs and
// `as_of` give the same result bit for bit, whatever the input order.
// Retracted runs are the caller's to drop (its store query).
#pragma once

#include "calibrate/stats.hpp"
#include "util/result.hpp"

#include <array>
#include <cstdint>
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
  std::string op_class;                          // gemm | moe | attn | elementwise | unknown
  std::string gfx;                               // "" is grouped as "unknown"
  std::string regime;                            // decode | prefill | …; "" is grouped as "unknown"
  std::optional<double> isolated_speedup;        // × over baseline
  std::optional<double> e2e_delta_pct;           // percent, measured e2e throughput delta
  std::optional<double> pred_roofline_pct;       // fraction 0–1
  std::optional<double> pred_target_eff;         // fraction 0–1
  std::optional<double> pred_attainable_speedup; // ×
  std::string pred_headroom_class;               // saturated | moderate | underperforming | unknown
  std::string pred_confidence;                   // low | medium | high
  bool pred_suspect = false;
  bool pred_dispatch_bound = false;
  std::optional<double> pred_pct_gpu_time; // percent 0–100
  std::optional<double> post_efficiency;   // fraction: measured post roofline_efficiency_pct / 100
};

// Finest key level printed (`--by`).
enum class PriorsLevel { op_class, op_class_gfx, op_class_gfx_regime };

// Confidence weights (`--confidence-weights`), each ≥ 0.
struct ConfidenceWeights {
  double high = 1.0;
  double medium = 0.6;
  double low = 0.25;
};

// A fixed default so bootstrap intervals are reproducible.
constexpr std::uint64_t k_default_bootstrap_seed = 0x7266'6462'7072'6973ULL; // "rfdbpris"

struct PriorsParams {
  double prior_strength = 3.0; // k ≥ 0, in units of observation weight
  double quantile = 0.75;      // of e, in (0, 1]
  double iso_noise = 0.034;    // isolated noise band (fraction): s > 1 + iso_noise is a win
  double e2e_noise_pct = 0.5;  // e2e noise band (percent): d ≤ −this is a loss
  ConfidenceWeights confidence_weights;
  std::optional<double> half_life_days; // > 0; none = no time decay
  std::string as_of;                    // "YYYY-MM-DD"; "" = newest run_date in the input
  std::optional<std::string> since;     // "YYYY-MM-DD": drop attempts of earlier runs
  PriorsLevel level = PriorsLevel::op_class;
  int bootstrap_resamples = 1000; // ≥ 0; 0 = no intervals
  std::uint64_t seed = k_default_bootstrap_seed;
  double interval = 0.90; // central bootstrap interval, in (0, 1)
};

// Why an attempt is not an observation; checked in this order, first match wins.
enum class ExclusionReason {
  bad_run_date,        // run_date is not YYYY-MM-DD
  before_since,        // run_date < since
  after_as_of,         // run_date > as_of (not yet known at as_of)
  unknown_class,       // op_class outside gemm|moe|elementwise|attn: never calibrated
  no_speedup,          // isolated speedup missing, non-finite or ≤ 0
  below_noise,         // s ≤ 1 + iso_noise: no evidence about the ceiling
  suspect,             // prediction flagged suspect (infeasible byte/FLOP model)
  dispatch_bound,      // dispatch-bound launch: no roofline verdict
  unknown_headroom,    // headroom_class unknown/empty
  bad_roofline_pct,    // roofline_pct missing or outside (0, 1]
  bad_post_efficiency, // measured post efficiency present but non-finite or ≤ 0
  unknown_confidence,  // confidence not low|medium|high
  infeasible,          // e > 1.05 before clamping: counted as infeasible + contradiction
  zero_weight,         // weight is 0 (confidence weight 0 or decay underflow)
};
inline constexpr int k_exclusion_reason_count = 14;

// Stable snake_case name ("below_noise").
const char* to_string(ExclusionReason reason);
const char* to_string(PriorsLevel level); // "class", "class,gfx", "class,gfx,regime"

// The four calibrated classes, in report order.
inline constexpr std::array<std::string_view, 4> k_op_classes = {"gemm", "moe", "elementwise", "attn"};
// Seed target_eff (DESIGN.md §1) of one of k_op_classes; nullopt otherwise.
std::optional<double> seed_target_eff(std::string_view op_class);

// Outcome of judging one attempt (see evaluate_attempt).
struct AttemptEvaluation {
  std::optional<ExclusionReason> excluded; // none = a valid observation
  double e = 0.0;                          // achieved efficiency, clamped to ≤ 1 (0 when not computed)
  bool e_from_post = false;                // e came from the measured post roofline
  double weight = 0.0;                     // confidence × decay (0 when excluded before weighting)
  bool contradiction = false;              // s > attainable × (1 + iso_noise), or infeasible
};

// Judge one attempt against params whose as_of is already resolved (a valid
// date). DESIGN.md §4: e = post efficiency if measured, else min(1, roofline_pct × s).
AttemptEvaluation evaluate_attempt(const Observation& attempt, const PriorsParams& params);

enum class PriorSource { seed, calibrated, parent };
const char* to_string(PriorSource source); // "seed" | "calibrated" | "parent"

// One key's calibrated target_eff; see row_key below for its name.
struct PriorRow {
  std::string op_class;
  std::optional<std::string> gfx;       // none above the gfx level
  std::optional<std::string> regime;    // none above the regime level
  double seed = 0.0;                    // the class seed (for every level)
  double parent = 0.0;                  // value shrunk toward (the seed at class level)
  double target_eff = 0.0;              // fraction (0, 1]
  int n = 0;                            // observations
  double weight = 0.0;                  // W = Σ w
  std::optional<double> statistic;      // q, the weighted quantile of e (none when n = 0)
  std::optional<Interval> interval;     // bootstrap interval (none when n = 0)
  int contradictions = 0;               // observations beating the prediction + infeasible attempts
  int infeasible = 0;                   // attempts with e > 1.05 before clamping
  std::optional<std::string> last_seen; // newest run_date among the observations
  PriorSource source = PriorSource::seed;
};

// "moe", "moe:gfx950" or "moe:gfx950:decode": the --explain key of a row,
// also the label that seeds the row's bootstrap stream.
std::string row_key(const PriorRow& row);

// e2e transfer for one op_class × regime: the c-weighted median of d / c with
// c = pct_gpu_time × (1 − 1/s), over every attempt in the date window with a
// measured d, s > 1 and pct_gpu_time > 0, whatever its verdict (c does not use
// the roofline). Consumers multiply expected_e2e_gain_pct by median_ratio for
// a calibrated e2e expectation.
struct TransferRow {
  std::string op_class;
  std::string regime;
  int n = 0;
  double median_ratio = 0.0;
  std::optional<Interval> interval;
  int sign_flips = 0; // s > 1 + iso_noise but d ≤ −e2e_noise_pct
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
  int attempts = 0;                      // input rows
  int observations = 0;                  // rows that are observations
  std::vector<ExclusionCount> excluded;  // nonzero counts, in ExclusionReason order
};

// Calibrate target_eff priors and the e2e transfer from attempt rows.
// Errors (invalid_input): a parameter out of range, or as_of/since not YYYY-MM-DD.
Result<PriorsResult> compute_priors(std::span<const Observation> attempts, const PriorsParams& params);

// A key "CLASS[:GFX[:REGIME]]" for --explain.
struct PriorsKey {
  std::string op_class;
  std::optional<std::string> gfx;
  std::optional<std::string> regime;
};
// Parse "moe", "moe:gfx950", "moe:gfx950:decode". Error (usage): unknown class,
// empty part or more than three parts.
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

// Everything --explain prints for one key.
struct KeyExplanation {
  PriorsKey key;
  std::optional<std::string> as_of;
  PriorsParams params;                        // with as_of resolved
  std::vector<PriorRow> chain;                // class row, then gfx row, then regime row
  std::vector<ExplainedAttempt> observations; // contributing to the key, chronological
  std::vector<ExplainedAttempt> excluded;     // attempts matching the key that are not
};

// Explain one key: its chain of rows from the class down, every contributing
// observation and every excluded attempt of that key with its reason.
// Errors: as compute_priors.
Result<KeyExplanation> explain_priors(std::span<const Observation> attempts, const PriorsParams& params,
                                      const PriorsKey& key);

} // namespace rfdb::calibrate
