// GEAK's attestation ledger and its retire rule (docs/kb.md, "The retire rule").
//
// A GEAK kb record carries a ledger of what happened when it was put on hardware again
// (validated / failed / not_reproduced / inapplicable), read from GEAK's kb/attest.py
// (GEAK-KB §4, see docs/kb.md). The retire rule decides when a record with negative history stops
// being offered; a record can also be retired by its own fields (`retained: false` or a
// non-empty `retired_reason`, GEAK-KB §5 `is_retired`). Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// One history entry of a ledger (GEAK-KB §4.1), oldest first in Ledger::history.
struct LedgerEntry {
  std::string at;      // UTC "YYYY-MM-DDTHH:MM:SSZ" as written ("" when absent)
  std::string outcome; // validated | failed | not_reproduced | inapplicable (anything else kept as written)
  std::string by;      // actor ("" when absent)
};

// The counters and history of `attestations` (GEAK-KB §4.1). Counters that are absent, not
// integers, booleans or negative read 0 (GEAK's defensive reading).
struct Ledger {
  int recalls = 0;
  int validations = 0;
  int failures = 0;
  int not_reproduced = 0;
  int inapplicable = 0;
  std::string last_outcome;
  std::string last_at;
  std::string last_by;
  std::vector<LedgerEntry> history; // oldest → newest (GEAK keeps ≤ 20)

  // True when any counter is non-zero or the history is not empty.
  [[nodiscard]] bool any() const;
};

// GEAK's retire threshold and recent window (kb/attest.py RETIRE_THRESHOLD, RECENT_WINDOW).
inline constexpr int k_retire_threshold = 2;
inline constexpr int k_recent_window = 3;

// The newest retire rule (GEAK-KB §4.3, AIMA/GEAK-agent kb/attest.py @ a47624d2): the window is
// the last max(k_recent_window, threshold) history outcomes that tested the record
// (validated, failed, not_reproduced; inapplicable and unknown outcomes skipped). A non-empty
// window retires when it holds no `validated` and at least `threshold` entries: reason
// "ledger: last N attempts all negative" (N = the window's size). An empty window (no usable
// history) falls back to the lifetime counters: retire when validations == 0 and
// failures + not_reproduced >= threshold, reason "ledger: N negative attempts (failures +
// not_reproduced), no validation". nullopt: not retired. `threshold` < 1 reads as 1.
std::optional<std::string> ledger_retire_reason(const Ledger& ledger, int threshold = k_retire_threshold);

// The older rule (GEAK-KB §4.3, big-yellow-duck/GEAK kb/attest.py @ 332bf409): with no
// validation, retire when not_reproduced >= 2 ("ledger (old rule): N not reproduced, no
// validation") or when tried = recalls - inapplicable >= 3 ("ledger (old rule): N tried, no
// validation"). nullopt: not retired. Kept for records written under it; ingest judges with
// the newest rule.
std::optional<std::string> ledger_retire_reason_old(const Ledger& ledger);

// GEAK's `is_retired(value)` (GEAK-KB §5): `retained` is false, or `retired_reason` is not
// blank. `retained` nullopt = absent.
bool is_retired(std::optional<bool> retained, std::string_view retired_reason);

// Whether a kb record counts as retired, and why: its own retirement first (its
// retired_reason, or "retained: false" when it has none), else the newest ledger rule.
// nullopt: it counts.
std::optional<std::string> record_retired_why(std::optional<bool> retained, std::string_view retired_reason,
                                              const Ledger& ledger);

} // namespace rfdb::domain
