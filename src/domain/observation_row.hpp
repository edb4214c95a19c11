// One attempt as the estimator reads it, as views: a row of the materialized
// observations table (store) and the input of calibrate's ObservationTable.
#pragma once

#include <optional>
#include <string_view>

namespace rfdb::domain {

// Why a row is a right-censored observation (docs/estimator.md, "Censored
// observations"): a head the run never tried, whose efficiency is known only
// to be at least its roofline_pct. none: an attempt.
enum class CensorReason : unsigned char {
  none,
  skip_gate,            // verdict roofline_pct >= target_eff, no attempt (GEAK's skip gate)
  saturated_no_attempt, // banded saturated, no attempt in the run
};
// "none" | "skip gate" | "saturated, no attempt"
constexpr const char* to_string(CensorReason reason)
{
  switch (reason) {
  case CensorReason::skip_gate:
    return "skip gate";
  case CensorReason::saturated_no_attempt:
    return "saturated, no attempt";
  case CensorReason::none:
    break;
  }
  return "none";
}

// An attempt with its run's date and GPU, its parity facts and its
// prediction snapshot with the predicting verdict's dispatch_bound. The
// views belong to whoever hands the row over (valid for that call only);
// NULL text reads as "" except headroom_class and confidence (nullopt).
// Units as in the schema (migration 0009).
struct ObservationRow {
  std::string_view run_id, run_date, gfx, op_class, regime, output_parity, reject_reason;
  std::optional<std::string_view> headroom_class, confidence;
  std::optional<double> isolated_speedup, e2e_delta_pct, roofline_pct, attainable_speedup, pct_gpu_time,
      post_efficiency;
  std::optional<bool> suspect;
  bool dispatch_bound = false;
  // The kernel, and the prediction's source_kind (analytic | measured; nullopt
  // = NULL): observations of one run on one kernel from one prediction share
  // one unit of weight, and the priors count measured vs analytic evidence.
  std::string_view short_name;
  std::optional<std::string_view> source_kind;
  // Its prediction or post efficiency is a measured verdict flagged
  // profiler_hbm_undercount (observations.profiler_hbm_undercount, migration 0016).
  bool profiler_hbm_undercount = false;
  // A head without an attempt, censored at roofline_pct (none: an attempt).
  CensorReason censored = CensorReason::none;
};

} // namespace rfdb::domain
