// Evidence rows from the store → the playbook's input model: runs, attempts,
// per-round rankings (top kernel by pct_gpu_time vs by expected gain), head
// verdicts (pct_gpu_time ≥ 5 in each run's latest profiled round, with the
// attempt's prediction precedence: a measured baseline roofline of the
// kernel outranks the analytic verdict) and imported findings (negative ones
// flagged for Cautions). Pure mapping plus those derivations.
#pragma once

#include "domain/as_of.hpp"
#include "report/model.hpp"
#include "store/report_evidence.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rfdb::report {

// Head kernels are those at or above this share of GPU time (percent),
// HEAD_THRESHOLD_PCT in FORMATS.md §3.4.
inline constexpr double k_head_threshold_pct = 5.0;

// Builds the input row by row as the store streams it (store::
// read_report_evidence): verdicts are kept one run at a time (their rows
// arrive grouped by run) and attempts are scoped and folded into the
// input's attempt digest as they come, so neither the history's verdicts nor
// its attempts are held. Call add_* in the stream's order (runs, verdicts,
// attempts, findings), then finish once.
class ReportInputBuilder {
public:
  // as_of: the date given (--as-of), "" for the newest run date; since and
  // gfx_filter: the report's scope (analysis rules in report/findings.hpp).
  // for_cards: the cards quote every run caution, so keep them all (else
  // only those the playbook shows).
  ReportInputBuilder(std::string as_of, std::optional<std::string> since,
                     std::optional<std::string> gfx_filter, bool for_cards = true);
  ReportInputBuilder(const ReportInputBuilder&) = delete;
  ReportInputBuilder& operator=(const ReportInputBuilder&) = delete;
  ~ReportInputBuilder();

  // Every run comes before the first verdict or attempt: a verdict or an
  // attempt is scoped by its run, and one whose run was not added is out.
  void add_run(store::RunSummary run);
  // Rows of one run must be contiguous (the runs and a run's rows in any
  // order); every verdict comes before the first attempt.
  void add_verdict(store::ReportVerdict&& verdict);
  // Attempts in any order.
  void add_attempt(store::ReportAttempt&& attempt);
  void add_finding(const store::ReportFinding& finding);
  // The input (as_of resolved); the builder is spent afterwards.
  ReportInput finish(calibrate::PriorsResult priors);

private:
  void flush_run();
  void start_verdicts();
  void start_attempts();
  // The run added with this id, or nullptr.
  const RunInfo* run_of(const std::string& run_id);

  ReportInput m_in;
  std::string m_as_of_given;
  domain::NewestDate m_newest_run_date;
  AttemptInfo m_attempt; // the attempt being folded (its buffers are reused)
  bool m_verdicts_started = false;
  bool m_attempts_started = false;
  std::set<std::pair<std::string, std::string>>
      m_byte_reducing;                              // (run, kernel) with a fusion/precision attempt
  std::vector<store::ReportVerdict> m_run_verdicts; // the current run's rows first, then spare slots
  std::size_t m_run_count = 0;                      // the current run's rows in m_run_verdicts
  const RunInfo* m_verdict_run = nullptr;           // their run
  std::vector<bool> m_undated;                      // per run: run_date NULL
  std::unordered_map<std::string_view, std::uint32_t> m_by_id; // m_in.runs indices by run_id (its strings)
  const RunInfo* m_last_run = nullptr;                         // run_of's last answer
  std::string m_newest_run;                                    // newest run with a profiled round
  std::string m_newest_date;
};

// The same input from fully loaded evidence (consumed: its rows are moved
// out and released as they are converted).
ReportInput build_report_input(store::ReportEvidence&& evidence, calibrate::PriorsResult priors,
                               std::string as_of, std::optional<std::string> since,
                               std::optional<std::string> gfx_filter);

} // namespace rfdb::report
