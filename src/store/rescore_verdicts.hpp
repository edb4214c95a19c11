// The verdicts `rfdb rescore` re-bands: every current profile-round roofline verdict
// (queries/rescore_verdicts.sql) with its run's date and GPU. Units as in the schema:
// roofline_pct and target_eff fractions 0–1, attainable_speedup × over baseline,
// pct_gpu_time and expected_e2e_gain_pct percent 0–100.
#pragma once

#include "store/attempt.hpp"
#include "store/database.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rfdb::store {

// One verdict as the run stored it (the values the run routed on).
struct RescoreVerdict {
  std::string run_id;
  std::string run_date; // YYYY-MM-DD as stored; "" when the run has none
  std::string gfx;      // as stored; "" when unknown
  std::string round;    // profile round label ('0', '1', 'head', …)
  int round_order = 0;
  std::string short_name, op_class;
  std::string regime; // as stored; "" when the verdict states none
  std::string source_kind, confidence;
  std::optional<double> pct_gpu_time, roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::string headroom_class;
  bool suspect = false;
  bool dispatch_bound = false;
};

// The current profile-round verdicts of every non-retracted run (run_id nullopt), or of the
// one run `run_id` (retracted or not; the caller resolves the id first), in (run_date, run_id,
// round_order, pct_gpu_time descending, short_name) order. Errors: db.
Result<std::vector<RescoreVerdict>> load_rescore_verdicts(Database& db,
                                                          const std::optional<std::string>& run_id);

// A candidate run of the playbook's routing replay (queries/replay_win_runs.sql).
struct ReplayRunRef {
  std::string run_id;
  std::string run_date; // YYYY-MM-DD as stored
  std::string gfx;      // as stored; "" when unknown
};

// The non-retracted runs dated on or before `as_of` (and on or after `since` when not empty)
// with an attempt whose e2e delta is positive, newest first (run_date descending, run_id).
// Errors: db.
Result<std::vector<ReplayRunRef>> list_replay_win_runs(Database& db, const std::string& as_of,
                                                       const std::string& since);

// The attempts of `run_id` (queries/replay_attempts.sql) with only what the replay reads set:
// run_id, short_name, round, e2e_delta_pct (percent), output_parity, reject_reason.
// Errors: db.
Result<std::vector<Attempt>> load_replay_attempts(Database& db, const std::string& run_id);

} // namespace rfdb::store
