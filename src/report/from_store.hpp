// Evidence rows from the store → the playbook's input model: runs, attempts,
// per-round rankings (top kernel by pct_gpu_time vs by expected gain), head
// verdicts (pct_gpu_time ≥ 5 in each run's latest profiled round, with the
// attempt's prediction precedence: a measured baseline roofline of the
// kernel outranks the analytic verdict) and imported findings (negative ones
// flagged for Cautions). Pure mapping plus those derivations.
#pragma once

#include "domain/as_of.hpp"
#include "report/model.hpp"
#include "store/kb_records.hpp"
#include "store/report_evidence.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rfdb::report {

class ReportInputBuilder;

// The report's view of a stored run (its text columns, "" for NULL) and of one of its attempts
// (joined to `run`; run_index unset): what ReportInputBuilder folds, for callers that read
// attempts one by one (report/kb_export).
RunInfo run_info(store::RunSummary run);
AttemptInfo attempt_view(store::Attempt attempt, const RunInfo& run);
// The report's view of a current kb record (docs/playbook.md, "GEAK kb records"): its identity,
// metric, signature, ledger counters, the newest k_recent_window tested outcomes of its history
// (validated, failed, not_reproduced; oldest first), the stored retired flag and reason, and its
// date (verified_on when a date, else the last attestation's day).
KbRecordInfo kb_record_info(const store::KbRecord& record);

namespace detail {
// The top kernel by pct_gpu_time and by expected gain of one profiled round
// of a run: its first verdict and the first of equals of each ranking.
struct RoundTops {
  const store::ReportVerdict* first = nullptr;
  const store::ReportVerdict* by_pct = nullptr;
  const store::ReportVerdict* by_gain = nullptr;
};
} // namespace detail

// The verdicts half of a report input, folded one run at a time: per-round
// rankings and the head verdicts (into a HeadDigest). Made by
// ReportInputBuilder::fold_verdicts once every run is added; it reads the
// builder's runs but writes only itself, so it may be fed on another thread
// while the builder takes the attempts.
class VerdictFold {
public:
  VerdictFold(VerdictFold&&) noexcept;
  VerdictFold& operator=(VerdictFold&&) noexcept;
  VerdictFold(const VerdictFold&) = delete;
  VerdictFold& operator=(const VerdictFold&) = delete;
  ~VerdictFold();

  // Rows of one run should be contiguous (the runs and a run's rows in any
  // order); a verdict whose run was not added is out of the filter. A run
  // whose rows come again after another run's makes the fold split: it then
  // ignores every later row and must be done again from the start with the
  // rows in run order (fold_report_verdicts does).
  void add(store::ReportVerdict&& verdict);
  // Whether a run's rows came in two pieces (see add).
  [[nodiscard]] bool split() const { return m_split; }

private:
  friend class ReportInputBuilder;
  friend Result<void> fold_report_verdicts(store::Database& db, const store::EvidenceFilter& filter,
                                           VerdictFold& fold);
  explicit VerdictFold(const ReportInputBuilder& builder);
  void flush_run();

  const ReportInputBuilder* m_builder;
  std::vector<RoundRanking> m_rankings;
  int m_agreed_rounds = 0;
  std::shared_ptr<HeadDigest> m_heads;
  std::vector<store::ReportVerdict> m_run_verdicts; // the current run's rows first, then spare slots
  std::vector<detail::RoundTops> m_tops;            // the current run's rounds (reused)
  std::vector<HeadVerdict> m_run_heads;             // the current run's heads first (slots reused)
  std::size_t m_run_count = 0;                      // the current run's rows in m_run_verdicts
  const RunInfo* m_run = nullptr;                   // their run
  std::string m_newest_run;                         // newest run with a profiled round
  std::string m_newest_date;
  std::vector<bool> m_seen; // per builder run: its rows have begun
  bool m_split = false;
};

// Attempts folded into an AttemptDigest of their own (rules in
// report/findings.hpp): made by ReportInputBuilder::fold_attempts once every
// run is added; it reads the builder's runs but writes only itself, so
// several may be fed at the same time on as many threads, each with a part
// of the attempts, and handed back with ReportInputBuilder::take_attempts.
class AttemptFold {
public:
  AttemptFold(AttemptFold&&) noexcept;
  AttemptFold& operator=(AttemptFold&&) noexcept;
  AttemptFold(const AttemptFold&) = delete;
  AttemptFold& operator=(const AttemptFold&) = delete;
  ~AttemptFold();

  // One attempt, in any order; one whose run was not added is out of the
  // filter. Its strings may be swapped out (buffers handed back).
  void add(store::Attempt&& attempt);

private:
  friend class ReportInputBuilder;
  AttemptFold(const ReportInputBuilder& builder, std::shared_ptr<AttemptDigest> digest);

  const ReportInputBuilder* m_builder;
  std::shared_ptr<AttemptDigest> m_digest;
  std::set<std::pair<std::string, std::string>>
      m_byte_reducing;                 // (run, kernel) with a fusion/precision attempt
  AttemptInfo m_attempt;               // the attempt being folded (its buffers are reused)
  const RunInfo* m_last_run = nullptr; // the last attempt's run
};

// Fold the filter's verdicts from `db` into `fold`, a new fold
// (ReportInputBuilder::fold_verdicts): read in table order, the cheap read,
// and done again in run_id order only when a run's rows were not contiguous
// there (VerdictFold::split). It may run on another thread and connection
// while the builder takes the attempts. Errors: db.
Result<void> fold_report_verdicts(store::Database& db, const store::EvidenceFilter& filter,
                                  VerdictFold& fold);

// Builds the input row by row as the store streams it (store::
// read_report_evidence): verdicts are folded one run at a time by a
// VerdictFold and attempts are scoped and folded into the input's attempt
// digest as they come, so neither the history's verdicts nor its attempts
// are held. Add every run first; then the verdicts (through fold_verdicts)
// and the attempts may come in either order, or at the same time on two
// threads; then findings, then finish once.
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
  // An empty fold of the verdicts, once every run is added (no add_run
  // after it). Another one may be made to read the verdicts again; the
  // builder must outlive them.
  [[nodiscard]] VerdictFold fold_verdicts();
  // Attempts in any order.
  void add_attempt(store::Attempt&& attempt);
  // An empty fold of other attempts into a digest of its own, once every
  // run is added; the builder must outlive it. Folds fed at the same time
  // on several threads, each a part of the attempts (none twice), are
  // given back by take_attempts.
  [[nodiscard]] AttemptFold fold_attempts();
  // Merge a fold made by fold_attempts into the input's attempts, as if its
  // attempts had come through add_attempt. After its last add.
  void take_attempts(AttemptFold&& fold);
  // Forget every attempt added or taken so far (they are to be read again,
  // from another snapshot).
  void drop_attempts();
  void add_finding(const store::ReportFinding& finding);
  // A current kb record (store::list_kb_records_with_history), in any order.
  void add_kb_record(const store::KbRecord& record);
  // The input (as_of resolved) with the verdicts of `fold`, a fold made by
  // this builder; the builder is spent afterwards.
  ReportInput finish(VerdictFold fold, calibrate::PriorsResult priors);

private:
  friend class VerdictFold;
  friend class AttemptFold;
  // Resolve as_of and index the runs (once, after the last add_run).
  void start();
  // Put m_in.runs (and m_undated) in run order: undated first, then
  // run_date, then run_id, byte-wise as SQLite's BINARY collation.
  void sort_runs();
  // An empty digest numbered by the runs, keeping every caution for cards.
  [[nodiscard]] std::shared_ptr<AttemptDigest> new_attempt_digest() const;
  // A new m_in.attempt_digest and the fold add_attempt feeds into it.
  void reset_attempts();
  // The run added with this id, or nullptr (thread-safe once started).
  // `after`: the run the caller found last, or nullptr. Rows stored run by
  // run mostly come in the order the runs were read (the ingest writes a
  // run's rows with it), so the run read after it is tried before the hash.
  [[nodiscard]] const RunInfo* find_run(const std::string& run_id, const RunInfo* after = nullptr) const;

  ReportInput m_in;
  std::string m_as_of_given;
  bool m_for_cards = true; // the cards quote every run caution
  domain::NewestDate m_newest_run_date;
  bool m_started = false;
  std::string m_watch;                   // the quadrant chart's fallback: the newest run in scope
  std::optional<AttemptFold> m_attempts; // add_attempt's, into m_in.attempt_digest (made by start)
  std::vector<bool> m_undated;           // per run: run_date NULL
  // Per run: the index of the run read after it (m_in.runs.size() for none).
  std::vector<std::uint32_t> m_next_read;
  std::unordered_map<std::string_view, std::uint32_t> m_by_id; // m_in.runs indices by run_id (its strings)
  std::shared_ptr<const std::vector<std::string>> m_run_ids;   // m_in.runs' ids, the digests' run numbers
};

} // namespace rfdb::report
