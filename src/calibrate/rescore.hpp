// `rfdb rescore` (docs/rescore.md, issue 32): every stored profile-round verdict re-banded
// under three sets of target_eff priors, and the routing decisions that would change.
//
// The three prior sets:
//   stored (a) the target_eff the run used, as its verdict stored it;
//   today  (b) the calibrated priors as of --as-of (default: the newest run date);
//   before (c) the priors as of the day before the run's date: leave-the-run-out, what rfdb
//              would have told that run.
// For each set, with the existing rules (domain/roofline.hpp, no second implementation):
//   headroom_class     = domain::headroom_band(roofline_pct, target_eff)
//   attainable_speedup = domain::attainable_speedup(roofline_pct, target_eff)      (×)
//   expected gain      = domain::amdahl_gain_pct(pct_gpu_time, attainable_speedup) (percent)
// A prior comes from the priors row of the verdict's key at --by's level (op_class, run gfx,
// verdict regime), else from the nearest level above that has a row; a class without a seed
// keeps the stored target_eff under every set.
//
// A verdict carries no band (under any set) when it is suspect (an infeasible byte/FLOP model),
// dispatch-bound, or stored without a band (headroom unknown: no verdict). A head is a verdict
// with pct_gpu_time ≥ domain::k_head_min_pct in its round; a banded head's rank is its place
// by expected gain in its run's round (then pct_gpu_time, then short_name), and the skip gate
// (GEAK PR #458) skips it when roofline_pct ≥ target_eff.
//
// The decisions that change, each of (b) and (c) against (a): the band (a move into or out of
// saturated is marked: the reroute-to-byte-reduction rule), a head's rank, a head's skip.
// Pure: no I/O; rescore_from_store reads the store and computes the priors.
#pragma once

#include "calibrate/priors.hpp"
#include "store/attempt.hpp"
#include "store/database.hpp"
#include "store/rescore_verdicts.hpp"

#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rfdb::calibrate {

// The prior sets, in output order.
enum class PriorSet { stored = 0, today = 1, before = 2 };
inline constexpr std::size_t k_prior_set_count = 3;
const char* to_string(PriorSet set); // "stored" | "today" | "before"

// One verdict under one prior set.
struct ScoredVerdict {
  bool available = false;           // false: (c) of a run without a valid date
  std::optional<double> target_eff; // fraction 0–1
  std::string prior_key;            // the priors row used ("moe:gfx950"); "" under stored
  std::string prior_source;         // stored | calibrated | parent | seed
  std::string headroom_class;       // saturated | moderate | underperforming | unknown; "" without a band
  std::optional<double> attainable_speedup;    // ×
  std::optional<double> expected_e2e_gain_pct; // percent 0–100
  std::optional<int> rank;                     // banded heads: 1 = first by expected gain in its round
  std::optional<bool> skip;                    // banded heads: roofline_pct ≥ target_eff
};

// A decision that differs under `set` (today or before) from the stored set.
struct RescoreChange {
  PriorSet set = PriorSet::today;
  std::string decision;   // band | rank | skip
  std::string from, to;   // as printed: a band, a rank, "skip" / "try"
  bool saturated = false; // a band change into or out of saturated
};

struct RescoredVerdict {
  store::RescoreVerdict verdict; // as stored
  bool head = false;             // pct_gpu_time ≥ domain::k_head_min_pct
  std::string no_band;           // "" when banded; suspect | dispatch_bound | no verdict
  std::string before_as_of;      // the date of (c); "" when the run has no valid date
  std::array<ScoredVerdict, k_prior_set_count> under;
  std::vector<RescoreChange> changes; // today's first, then before's; band, rank, skip
};

// Per prior set (today, before): how many verdicts change each decision.
struct RescoreChangeCounts {
  int band = 0;
  int saturated = 0; // band changes into or out of saturated
  int rank = 0;
  int skip = 0;
};

// Routing replay (issue 32): per run with a measured kernel win, the kernel of its best realized
// e2e win (the largest e2e_delta_pct beyond the noise band among attempts whose output parity did
// not fail and that engaged, on a kernel with a banded head verdict in the run) and that head's
// rank by expected gain under each set. The verdict is the one of the attempt's round, else the
// kernel's first round.
struct ReplayRun {
  std::string run_id, run_date, round, short_name;
  double realized_e2e_pct = 0.0;                                  // percent, measured
  std::array<std::optional<int>, k_prior_set_count> rank;         // 1 = first
  std::array<std::optional<double>, k_prior_set_count> error_pct; // expected − realized, percent
};

// Over the replayed runs: where the winner's rank under c (what rfdb would have told the run)
// stands against a (what the run used): up (a better rank), down or the same; and the mean
// |expected − realized| of the winner under each set (none without a replayed run).
struct ReplaySummary {
  int runs = 0;
  int up = 0, down = 0, same = 0;
  std::array<std::optional<double>, k_prior_set_count> mean_abs_error_pct;
};

struct RescoreResult {
  std::string as_of; // the date of (b); "" when no run has a valid date
  PriorsLevel level = PriorsLevel::op_class;
  std::optional<std::string> run_id;     // --run: the one run rescored
  std::string replay_day;                // playbook_replay: the run date replayed; "" otherwise
  std::vector<RescoredVerdict> verdicts; // in load order (run_date, run_id, round, heads first)
  int runs = 0;
  int rounds = 0;
  int banded = 0;
  int heads = 0;
  int changed = 0; // verdicts with at least one change
  RescoreChangeCounts today, before;
  std::vector<ReplayRun> replay; // in run order
  ReplaySummary replay_summary;
};

// Fill result.replay and result.replay_summary from the runs' attempts (store::Attempt: run_id,
// short_name, round, e2e_delta_pct, output_parity, reject_reason). Pure.
void replay_routing(RescoreResult& result, std::span<const store::Attempt> attempts);

// Rescore `verdicts` under `today` and, per run, `before_by_date` (keyed by the as_of date of
// (c), the day before the run's date). Pure.
RescoreResult rescore(std::span<const store::RescoreVerdict> verdicts, const PriorsResult& today,
                      const std::map<std::string, PriorsResult, std::less<>>& before_by_date,
                      PriorsLevel level);

struct RescoreParams {
  PriorsParams priors;               // level (--by), as_of (--as-of); intervals are not needed
  std::optional<std::string> run_id; // the full id of the one run to rescore; none = every run
};

// Read the verdicts (store::load_rescore_verdicts), compute the priors as of params' as_of and
// as of the day before each rescored run's date (compute_priors_at_dates; evidence of
// non-retracted runs), and rescore. Errors: db; as compute_priors.
Result<RescoreResult> rescore_from_store(store::Database& db, const RescoreParams& params);

// The scope of the playbook's routing replay: the report's --as-of (resolved), --since ("" =
// all the history) and --gfx (its domain::gfx_key; nullopt = every GPU).
struct PlaybookReplayScope {
  std::string as_of;
  std::string since;
  std::optional<std::string> gfx_key;
};

// At most this many runs are replayed in the playbook (the rest: rfdb rescore).
inline constexpr std::size_t k_playbook_replay_runs = 20;
// At most this many candidate runs (an attempt with a positive e2e delta) are read while looking
// for the newest day with a measured kernel win.
inline constexpr std::size_t k_playbook_replay_candidates = 200;

// The playbook's routing replay ("Would calibration have changed routing?", docs/playbook.md):
// the runs in `scope` of the newest run date with a measured kernel win (an attempt beyond the
// noise band whose parity held and that engaged; at most k_playbook_replay_runs), rescored at
// class × gfx under the stored target_eff (a), `today` (b: the report's own priors by class,gfx)
// and the priors as of the day before that date over the evidence since scope.since (c), with
// replay_routing. nullopt when no run in scope has such a win among the newest
// k_playbook_replay_candidates candidates. One priors computation (c), and three short queries
// per candidate run read. Errors: db; as compute_priors.
Result<std::optional<RescoreResult>> playbook_replay(store::Database& db, const PriorsResult& today,
                                                     const PlaybookReplayScope& scope);

} // namespace rfdb::calibrate
