// Evidence rows from the store → the playbook's input model: runs, attempts,
// per-round rankings (top kernel by pct_gpu_time vs by expected gain), head
// verdicts (pct_gpu_time ≥ 5 in each run's latest profiled round, with the
// attempt's prediction precedence: a measured baseline roofline of the
// kernel outranks the analytic verdict) and imported findings (negative ones
// flagged for Cautions). Pure mapping plus those derivations.
#pragma once

#include "report/model.hpp"
#include "store/report_evidence.hpp"

namespace rfdb::report {

// Head kernels are those at or above this share of GPU time (percent),
// HEAD_THRESHOLD_PCT in FORMATS.md §3.4.
inline constexpr double k_head_threshold_pct = 5.0;

// Consumes `evidence` (its rows are moved out and released as they are
// converted).
ReportInput build_report_input(store::ReportEvidence&& evidence, calibrate::PriorsResult priors,
                               std::string as_of, std::optional<std::string> since,
                               std::optional<std::string> gfx_filter);

} // namespace rfdb::report
