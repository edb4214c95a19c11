// The rows `rfdb report` reads beyond what calibration needs: every attempt
// with the attempt model's outcome facts (gate, parity, reason, the run's
// Director validation), the head verdicts including measured baseline
// rooflines, and the imported findings with their text. Retracted runs are
// left out. Units as in the schema (migrations/0001, 0003).
#pragma once

#include "domain/prediction.hpp"
#include "store/attempt.hpp"
#include "store/database.hpp"
#include "store/evidence.hpp"
#include "store/runs.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::store {

// A profile-round verdict (round set) or a measured baseline roofline
// (round empty, source_kind measured); its run's date and gfx are those of
// its run row.
struct ReportVerdict {
  std::string run_id;
  std::int64_t verdict_id = 0;
  std::string round;
  std::optional<int> round_order;
  std::string short_name, name, op_class, source_kind;
  std::optional<double> pct_gpu_time, roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::string headroom_class;
  bool suspect = false, dispatch_bound = false;
  std::vector<std::string> byte_reduction_levers;
  // measured: the engine's headroom_ratio (×), guidance and observed_limit,
  // and whether the verdict is disputed (domain::is_disputed).
  std::optional<double> headroom_ratio;
  std::string guidance, observed_limit;
  bool disputed = false;
};

struct ReportFinding {
  std::string origin, identity, name, key_raw, kernel_class_raw, op_class, gfx, regime, type;
  std::optional<int> stars, confirms;
  std::string lever, apply, effect, description, text;
  std::string lever_key; // a card we wrote states the lever key it was generated under
  // What it says (domain::KnowledgeKind spelling) and why; "" on rows an
  // older rfdb stored (the report classifies those). status and title: the
  // card's `status` and a proposal card's `title` fields.
  std::string classification, classification_reason, status, title;
  std::optional<double> iso_min, iso_max, e2e_min_pct, e2e_max_pct;
  std::string last_seen, lifecycle, generator;
  std::vector<std::string> sources_cited, cautions;
};

// Receivers of the rows read_report_evidence streams; each row is handed
// over once and not kept by the store. Verdicts and attempts each come in
// one object refilled (every field) for each row: a receiver may move or
// swap its fields out, and buffers it swaps in are reused for the next row.
struct ReportEvidenceSink {
  std::function<void(RunSummary&&)> run;
  std::function<void(Attempt&&)> attempt; // the members the report reads (store/attempt_fields.def, R)
  std::function<void(ReportVerdict&&)> verdict;
  std::function<void(ReportFinding&&)> finding;
};

// Which of the playbook's rows read_report_evidence streams (flags).
// verdicts come in table order (the cheap read: a run's rows are contiguous
// unless they were written apart), verdicts_by_run in run_id order (a run's
// rows always contiguous; an index seek per row).
enum class ReportRows : unsigned {
  runs = 1U,
  verdicts = 2U,
  attempts = 4U,
  findings = 8U,
  all = 15U,
  verdicts_by_run = 16U,
};

constexpr ReportRows operator|(ReportRows a, ReportRows b)
{
  return static_cast<ReportRows>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}

// Stream what the playbook reads (`rows`, all by default), in this order:
// runs (by run_date, run_id), verdicts (in table order: a run's rows in no
// given order, contiguous as they were written; with verdicts_by_run, by
// run_id), attempts (in no given order), imported
// findings (the filter's gfx only). Runs, verdicts and attempts are of the
// non-retracted runs the filter keeps; verdicts and attempts carry no run
// columns: the receiver joins them to the runs. The sink needs only the
// receivers of the rows asked for. Errors: db.
Result<void> read_report_evidence(Database& db, const EvidenceFilter& filter, const ReportEvidenceSink& sink,
                                  ReportRows rows = ReportRows::all);

// A closed range of attempt_id: [first, last] (empty when first > last).
struct AttemptIdRange {
  std::int64_t first = 0;
  std::int64_t last = -1;
};

// The lowest and highest attempt_id stored ({1, 0}, empty, when there is
// none). Errors: db.
Result<AttemptIdRange> attempt_id_bounds(Database& db);

// Stream the attempts read_report_evidence streams (same filter, same
// refilled object) whose attempt_id is in `range`: the read of the attempts
// split into ranges, for example between threads. Errors: db.
Result<void> read_report_attempts(Database& db, const EvidenceFilter& filter, AttemptIdRange range,
                                  const std::function<void(Attempt&&)>& sink);

} // namespace rfdb::store
