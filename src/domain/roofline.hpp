// The roofline rules of rfdb in one place (docs/glossary.md, docs/estimator.md): the seed
// target_eff per op_class, the headroom bands, attainable speedup, the
// Amdahl e2e ceiling, and the isolated and e2e noise bands that decide what
// counts as a win. ingest, calibrate and report all use these.
// So do the named queries (bound parameters); every other threshold, band
// edge, cap and shrink strength is here too, and no rule value appears
// outside src/domain/ (the lint.rules test checks it).
#pragma once

#include "domain/vocab.hpp"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// Isolated noise band (fraction): an isolated speedup s is a win only when
// s > 1 + k_iso_noise (1.034), and beats a prediction only when
// s > attainable × (1 + k_iso_noise). calibrate's --iso-noise defaults to it.
inline constexpr double k_iso_noise = 0.034;
// e2e noise band (percent): an e2e throughput delta d is a gain only when
// d > k_e2e_noise_pct, a loss when d ≤ −k_e2e_noise_pct.
inline constexpr double k_e2e_noise_pct = 0.5;

// Headroom band edges as fractions of target_eff (band_headroom).
inline constexpr double k_saturated_edge = 0.9;
inline constexpr double k_moderate_edge = 0.6;

// A head kernel (docs/playbook.md, "Saturated heads"): pct_gpu_time
// (percent) at least this in its round. The playbook's saturated heads and
// quadrant, and queries/playbook_saturated_heads.sql (:head_min_pct).
inline constexpr double k_head_min_pct = 5.0;

// An e2e delta (percent) above this × its Amdahl ceiling is annotated as
// beyond the ceiling on a playbook line.
inline constexpr double k_beyond_ceiling_factor = 2.0;

// A launch this short (ms) is timed by dispatch, not by the kernel: its
// roofline verdict is dispatch-bound (ingest).
inline constexpr double k_dispatch_bound_t_ms = 0.010;

// The largest isolated speedup (×) ingest believes; one above it (or below
// its inverse) is refused as implausible.
inline constexpr double k_max_plausible_speedup = 1000.0;

// A stored roofline_pct (fraction) is feasible in (k_min_feasible_roofline_pct, 1].
inline constexpr double k_min_feasible_roofline_pct = 0.001;

// calibrate (docs/estimator.md): an achieved efficiency e above this before
// clamping is infeasible and counts as a contradiction.
inline constexpr double k_infeasible_e = 1.05;

// calibrate: the default prior strength k of target_eff's shrink toward the
// parent (`rfdb priors --prior-strength`), in units of observation weight.
inline constexpr double k_prior_strength = 2.0;

// calibrate: the strength of the e2e transfer ratio's own shrink toward 1,
// (k + n·m) / (k + n) over n runs (`rfdb priors --transfer-strength`). A
// separate parameter from k_prior_strength (docs/estimator.md, "Why k = 2"):
// the transfer's coverage must not depend on target_eff's k.
inline constexpr double k_transfer_prior_strength = 3.0;

// calibrate: distinct runs a transfer ratio above 1 needs before it is
// exported as is (below, it is capped at 1.0, the raw Amdahl ceiling).
inline constexpr int k_transfer_breadth_runs = 5;

// calibrate, shifts (docs/estimator.md, "Shifts"): a step in a key's achieved
// efficiencies is flagged only when each window (before and after) holds at
// least this many runs.
inline constexpr int k_shift_min_runs = 3;
// calibrate, shifts: the permutation p-value of the max-type Mann–Whitney
// statistic must be at most this.
inline constexpr double k_shift_alpha = 0.05;
// calibrate, shifts: permutations of the run series behind that p-value.
inline constexpr int k_shift_permutations = 999;
// calibrate, priors: after a detected shift, an observation from a run before
// it weighs this × its usual weight (`rfdb priors`; `--since-shift` drops it).
inline constexpr double k_before_shift_weight = 0.25;

// The rules the named queries (queries/*.sql, both dialects) take as bound
// parameters, by name: the store binds each one a query names, so the SQL
// holds no threshold. iso_win_min = 1 + k_iso_noise (an isolated speedup is a
// win above it), e2e_noise_pct = k_e2e_noise_pct, head_min_pct = k_head_min_pct,
// infeasible_e = k_infeasible_e (queries/efficiency_series.sql).
struct RuleParameter {
  std::string_view name; // without the ':'
  double value;
};
inline constexpr std::array<RuleParameter, 4> k_rule_parameters = {{
    {"iso_win_min", 1.0 + k_iso_noise},
    {"e2e_noise_pct", k_e2e_noise_pct},
    {"head_min_pct", k_head_min_pct},
    {"infeasible_e", k_infeasible_e},
}};

// The op_classes that have a seed target_eff, in report order.
inline constexpr std::array<std::string_view, 4> k_seeded_op_classes = {"gemm", "moe", "elementwise", "attn"};

// Seed target_eff prior (fraction) per canonical op_class, docs/estimator.md, "Seeds":
// gemm 0.90, moe 0.90, elementwise 0.875, attn 0.50; any other text
// (unknown, "", a producer spelling) → nullopt.
std::optional<double> seed_target_eff(std::string_view op_class);
std::optional<double> seed_target_eff(OpClass op_class);

// headroom_class banded against target_eff: roofline_pct (fraction)
// ≥ 0.9·target_eff → saturated, ≥ 0.6·target_eff → moderate, else
// underperforming; unknown when either is missing, roofline_pct < 0 or
// target_eff ≤ 0. A 1e-9 tolerance keeps 0.81 vs 0.9·0.90 on the saturated
// side despite rounding.
HeadroomClass headroom_band(std::optional<double> roofline_pct, std::optional<double> target_eff);

// True when a stored headroom_class is one of the three bands (saturated,
// moderate, underperforming): false for unknown, "" and any other text.
bool is_banded(std::string_view headroom_class);

// The stored spelling of headroom_band (band_headroom(0.5, 0.9) == "underperforming").
std::string_view band_headroom(std::optional<double> roofline_pct, std::optional<double> target_eff);

// Attainable speedup (×) of a kernel at roofline_pct against target_eff:
// max(1, target_eff / roofline_pct); nullopt when either is missing or
// roofline_pct ≤ 0.
std::optional<double> attainable_speedup(std::optional<double> roofline_pct,
                                         std::optional<double> target_eff);

// The Amdahl e2e gain (percent) of speeding a kernel that takes
// pct_gpu_time percent of GPU time up by `speedup` (×):
// pct_gpu_time × (1 − 1/speedup). The caller checks speedup > 0.
double amdahl_gain_pct(double pct_gpu_time, double speedup);

// True when an isolated speedup s (×) is beyond the noise band: s > 1 + iso_noise.
bool is_isolated_win(double speedup, double iso_noise = k_iso_noise);

// True when an e2e delta d (percent) is beyond the noise band: d > e2e_noise_pct.
bool is_e2e_gain(double delta_pct, double e2e_noise_pct = k_e2e_noise_pct);

// True when an e2e delta d (percent) is a loss: d ≤ −e2e_noise_pct.
bool is_e2e_loss(double delta_pct, double e2e_noise_pct = k_e2e_noise_pct);

// True when an isolated speedup beats its predicted attainable speedup by
// more than the noise band: s > attainable × (1 + iso_noise).
bool beats_prediction(double speedup, double attainable, double iso_noise = k_iso_noise);

// A measured verdict is disputed (docs/playbook.md, "Saturated heads") when
// rfdb's band says saturated but the measuring engine reports at least this
// headroom_ratio (ceiling / performance against its empirical ceiling: 25 %
// or more left) or guidance "actionable".
inline constexpr double k_disputed_headroom_ratio = 1.25;

// True when a measured verdict's band is saturated while its engine says
// otherwise: headroom_ratio (×) ≥ k_disputed_headroom_ratio, or guidance
// (the roofline-v1 guidance reason of its dominant case) "actionable".
// False for any other band and for an analytic verdict (no headroom_ratio,
// no guidance).
bool is_disputed(std::string_view headroom_class, std::optional<double> headroom_ratio,
                 const std::optional<std::string>& guidance);

// One matched case of a multi-case measured roofline (roofline-v1 `cases`):
// its share of the kernel's time (fraction; the shares of a mix sum to 1),
// its roofline_pct (fraction) and its attainable speedup (× against the
// verdict's target_eff), and whether it is the file's dominant case.
struct CaseShare {
  std::string case_id;
  std::string regime; // decode | prefill | "" as the case states it
  double time_share = 0.0;
  double roofline_pct = 0.0;
  double attainable_speedup = 1.0;
  bool dominant = false;
};

// Attainable speedup (×) of a kernel whose time is split over `cases`, by
// Amdahl over the cases: 1 / Σ_i (t_i / a_i) with t_i the time shares
// (normalised to sum 1) and a_i each case's attainable_speedup. nullopt
// when the shares do not sum to a positive number, a share is negative or an
// attainable is not positive; a case with share 0 holds no time and adds nothing.
std::optional<double> case_mix_attainable(std::span<const CaseShare> cases);

// The regime the case mix keys: the regime with the largest summed time
// share ("" regimes skipped); a tie goes to the dominant case's regime.
// "" when no case states one.
std::string case_mix_regime(std::span<const CaseShare> cases);

// Miss diagnosis of a multi-case prediction: the case an isolated win
// `speedup` (×) came from, when the win beats the case mix's attainable
// (case_mix_attainable) or the dominant case's beyond the noise band but
// not the attainable of some case (× (1 + iso_noise)): of those cases the
// one with the largest time share (the first in order on a tie). nullptr
// when the win beats neither, or no case allows it (then the byte/FLOP
// counts are the suspect).
const CaseShare* case_mix_source(std::span<const CaseShare> cases, double speedup,
                                 double iso_noise = k_iso_noise);

} // namespace rfdb::domain
