// The evidence `rfdb priors` and `rfdb report` work from, read in one pass:
// attempts with their prediction snapshots, current profile-round verdicts
// and imported findings, excluding retracted runs. Units as in the schema.
#pragma once

#include "domain/observation_row.hpp"
#include "domain/prediction.hpp"
#include "store/attempt.hpp"
#include "store/database.hpp"
#include "store/runs.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rfdb::store {

struct EvidenceFilter {
  std::optional<std::string> since; // YYYY-MM-DD: runs on or after
  std::optional<std::string> gfx;   // only this GPU
  // Only these runs (`priors --stack`: the runs whose stack satisfies every
  // spec, store::stack_matches); nullopt = every run.
  std::optional<std::set<std::string, std::less<>>> run_ids;
};

struct EvidenceVerdict {
  std::string run_id, run_date, gfx, round;
  int round_order = 0;
  std::string short_name, op_class;
  std::optional<double> pct_gpu_time, roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::string headroom_class;
  std::vector<std::string> byte_reduction_levers;
};

struct EvidenceFinding {
  std::string origin, identity, name, op_class, gfx, regime, lever, effect;
  std::optional<int> stars, confirms;
  std::optional<double> iso_min, iso_max, e2e_min_pct, e2e_max_pct;
  std::string last_seen, lifecycle, generator;
  std::string type;             // routing | lever | method | anti-pattern | …
  std::string kernel_class_raw; // as the card or line wrote it ("" when absent)
  std::vector<std::string> sources_cited, cautions;
};

struct Evidence {
  std::vector<RunSummary> runs; // non-retracted, filtered
  // Of those runs, in (run_date, run_id, attempt_key) order: the members
  // calibration reads (store/attempt_fields.def, C) and the predicting
  // verdict's dispatch_bound; their run's date and GPU are its `runs` row's.
  std::vector<Attempt> attempts;
  std::vector<EvidenceVerdict> verdicts;
  std::vector<EvidenceFinding> findings;
};

// One row of the materialized observations table (migration 0009), gfx as
// stored. Text views are valid only during the callback.
using ObservationRecord = domain::ObservationRow;

// Call `fn` on every observation row of a non-retracted run inside `filter`
// (queries/evidence_observations.sql), in table order: the narrow table
// alone, no join. Errors: db.
Result<void> for_each_observation(Database& db, const EvidenceFilter& filter,
                                  const std::function<void(const ObservationRecord&)>& fn);

// A head its run never tried but judged close to its roofline: a
// right-censored observation at roofline_pct (row.censored set; no speedup,
// parity or post efficiency), with its profile round. Views as in
// ObservationRecord.
struct CensoredHeadRecord {
  domain::ObservationRow row;
  std::string_view round;
};

// Call `fn` on every censored head of a non-retracted run inside `filter`
// (queries/evidence_censored.sql: heads of the latest profiled round with no
// attempt in their run whose verdict, measured preferred, has roofline_pct >=
// target_eff, censor skip_gate, or is banded saturated, censor
// saturated_no_attempt), in (run_date, run_id, pct_gpu_time desc) order.
// Derived at read time from the stored verdicts and attempts. Errors: db.
Result<void> for_each_censored_head(Database& db, const EvidenceFilter& filter,
                                    const std::function<void(const CensoredHeadRecord&)>& fn);

// Load everything priors and the playbook need. Errors: db.
Result<Evidence> load_evidence(Database& db, const EvidenceFilter& filter);

// The active (not retracted) runs inside `filter` (run_date on or after
// since, gfx equal), in list_runs order. Errors: SQLite (store_error).
Result<std::vector<RunSummary>> runs_in_scope(Database& db, const EvidenceFilter& filter);

} // namespace rfdb::store
