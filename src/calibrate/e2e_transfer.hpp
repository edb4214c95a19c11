// The e2e transfer: how much of a kernel's Amdahl ceiling reached the
// end-to-end throughput, per op_class × regime (its rows: TransferRow in
// priors.hpp; compute_priors feeds it one attempt at a time).
//
// The rule, per op_class × regime: from attempts with a measured e2e delta
// d (percent) and s > 1, except parity-failed ones and those refused for
// no_engagement (their e2e did not run the new kernel):
// c = pct_gpu_time × (1 − 1/s) (percent, the Amdahl ceiling),
// x = clamp(d / c, −1, 2). With n distinct runs: n < 2 → median_ratio 1
// (source raw: use the raw ceiling); else m = the lower c-weighted median of
// x and median_ratio = (k_t + n·m) / (k_t + n) (source calibrated), k_t =
// transfer_strength (3, a separate parameter from prior_strength), capped at 1
// when n < domain::k_transfer_breadth_runs (capped = true). Consumers multiply
// expected_e2e_gain_pct by median_ratio. The interval is a 90 % bootstrap
// over runs of median_ratio (the cap applied to each resample): the
// uncertainty of the ratio, not a prediction interval for the next run.
#pragma once

#include "calibrate/priors.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rfdb::calibrate {

// One attempt's contribution to the e2e transfer.
struct TransferPoint {
  double x = 0.0; // clamp(d / c, −1, 2)
  double c = 0.0; // Amdahl ceiling, percent (× decay with --half-life)
  std::size_t run = 0;
};

// The attempt's point in the e2e transfer of its op_class × regime under the
// rule above (x = clamp(d / c, −1, 2); c the Amdahl ceiling in percent, not
// decayed; run left 0), or nullopt when it gives none (an exclusion that bars
// the transfer, parity failed, no_engagement, s ≤ 1, no finite d or no
// positive pct_gpu_time). The shift detector reads the same points.
std::optional<TransferPoint> transfer_point(const Observation& a, const AttemptEvaluation& eval);

// The e2e transfer, fed one attempt at a time (in input order).
class TransferGroups {
public:
  // Verdict usability does not matter here: c uses only pct_gpu_time and s.
  // `decay`: the attempt's weight factor with --half-life (1 without).
  void add(const Observation& a, std::string_view run_id, std::uint32_t run_key,
           const AttemptEvaluation& eval, const PriorsParams& p, double decay);

  // One row per op_class × regime with an attempt, in class order, then regime.
  std::vector<TransferRow> rows(const PriorsParams& p);

private:
  struct Group {
    std::vector<TransferPoint> points;
    std::vector<std::string_view> runs;                       // index → run_id, first-seen order
    std::unordered_map<std::uint32_t, std::size_t> run_index; // RunIndex key → index into runs
    int sign_flips = 0;
    int beyond_ceiling = 0;
  };
  std::map<std::pair<std::size_t, std::string>, Group> m_groups; // (seeded_rank, regime)
};

} // namespace rfdb::calibrate
