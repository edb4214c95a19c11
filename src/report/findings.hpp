// The evidence behind `rfdb report` (docs/playbook.md, issues 4, 5 and 10):
// findings per reuse key with their tiers, the line cap, cautions, saturated
// heads and routing quality. Pure: no database, no files, no clock.
// The rules below are implemented in findings.cpp (what qualifies, the
// lines, cap; declared here), tiers.hpp (the tier rule), merge.hpp (imported
// knowledge, methods and seams), cautions.hpp, analysis.hpp (scope, heads,
// routing: the whole analysis) and text.hpp (the shared text helpers).
//
// Rules (the written rules of the playbook; the tests pin each one):
// - Scope. Runs, attempts, heads and rankings dated after as_of or before
//   `since`, or on another gfx than `gfx_filter`, are left out (undated rows
//   only when `since` is given); imported findings before `since`, on
//   another gfx, or — only when --as-of was given — after as_of, too. By
//   default as_of is the newest run date; imported knowledge newer than it
//   is shown with its own date and never moves as_of.
// - Reuse key `kernel_class · gfx · regime`: kernel_class = op_class, gfx
//   lower-cased ("" → "unknown"), regime by domain::normalize_regime. A
//   serving-config trial (attempt kind config) has kernel_class "config" and
//   regime "both" unless the run recorded one. Within a key one line per
//   lever key (domain::lever_key: one key per lever across runs, cards and
//   playbook lines); the raw spellings are kept.
// - What works holds positive *measured* findings only. A kernel lever
//   needs an isolated win (s > 1.034) and an e2e result beyond +0.5 % with
//   the gate accepted — or stacked, when the run's Director validation won
//   and includes it — output parity not failed and engagement not refused
//   (reject_reason no_engagement). A serving-config lever (no isolated
//   measurement) needs its trial kept (verdict confirmed) with e2e > +0.5 %
//   and parity not failed. Rejected, in-noise, parity-failed, unmeasured
//   and unengaged attempts never make a line.
// - The run's Director validation includes a lever when it is deployed (the
//   final overlay, or the Director's final environment / config, deployed
//   it; docs/attempt-model.md) (a kept config trial is in the final config). It is won
//   when its class is win and its throughput_speedup > 1; lost when it
//   includes the lever and its class is no_win or its speedup ≤ 1.
// - Clean run: a kernel attempt with the isolated win, e2e beyond the band
//   and the A/B gate accepted. Verified end-to-end win: a qualifying attempt
//   whose run's validation was won and includes it.
// - Tier: report/tiers.hpp states the rule (assign_tier).
// - Imported merge (merge.cpp): an imported finding joins the first line
//   (run lines first) whose lever key — or backend — equals its lever key,
//   or whose imported findings share its `key` text (kb.py merges by key),
//   with a compatible reuse key: gfx, class and regime each equal, or one
//   side unknown (class also method or config; regime also both). Otherwise
//   it starts its own line. Its lever key is the first known lever (the
//   table in domain/normalize_lever.cpp) named by its lever, name, apply or
//   text, else its lever (else name) folded. Order: other producers' findings
//   first, then our own cards, by origin and identity. Our own cards
//   (generator rfdb) whose every cited source is already on their line
//   change nothing (the round trip). Archived findings are ignored; negative
//   ones (anti-pattern, a stated loss) and dead-end bullets become Cautions.
// - Beyond the ceiling: an e2e delta above twice its Amdahl ceiling
//   c = pct_gpu_time × (1 − 1/s) is annotated.
// - Cap: at most 40 lines; evict the lowest rank = stars × (0.25 + 0.75 ×
//   freshness), freshness = clamp(1 − days(as_of − last_seen)/365, 0, 1)
//   (0 without a valid date); run-verified ★★★ is never evicted. Ties: older
//   last_seen, then key, then lever.
// - Cautions ("also verify", never a prohibition): an isolated win
//   (s > 1.034) that lost e2e (d ≤ −0.5 %), a model contradiction
//   (s > predicted attainable × 1.034, a usable prediction), a lost Director
//   validation of a What works lever, a parity failure (output_parity fail
//   or a parity/accuracy/corruption reject reason; the caution quotes the
//   integrate reason: what broke), an isolated win that did not transfer
//   (s > 1.034 measured with −0.5 % < d ≤ +0.5 %, parity not failed and
//   engagement not refused), and imported negatives. One caution per kind,
//   run, kernel and lever key.
// - Saturated head: the latest verdict (highest round) of a kernel in a run,
//   with the prediction precedence of an attempt (a measured baseline
//   roofline outranks the analytic verdict), is saturated with
//   pct_gpu_time ≥ 5. The section shows the newest per kernel class × gfx.
// - Routing quality: rounds whose top by pct_gpu_time ≠ top by expected gain;
//   each pick's realized gain is its best e2e delta in that run when both
//   picks have one, else its best isolated speedup.
#pragma once

#include "report/model.hpp"
#include "report/text.hpp"
#include "report/tiers.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report {

// The isolated and e2e noise bands are domain::k_iso_noise (s > 1.034 is an
// isolated win) and domain::k_e2e_noise_pct (0.5 %), domain/roofline.hpp;
// so are the head threshold (domain::k_head_min_pct) and the beyond-ceiling
// factor (domain::k_beyond_ceiling_factor).
// What works lines (docs/playbook.md, "Sections and their caps").
inline constexpr std::size_t k_line_cap = 40;
// ★★★ lines are never evicted, so they can exceed k_line_cap; the playbook
// shows the freshest k_shown_cap of them (their cards keep all).
inline constexpr std::size_t k_shown_cap = 60;
inline constexpr double k_freshness_days = 365.0; // freshness falls to 0 over this
inline constexpr int k_imported_cap = 2;          // stars of a line without run evidence
// Section caps: the playbook stays the same size at any history length.
inline constexpr std::size_t k_routing_rows = 20;      // newest disagreements shown
inline constexpr std::size_t k_shift_rows = 10;        // newest shifts shown (## Shifts)
inline constexpr std::size_t k_run_cautions = 20;      // newest run cautions shown
inline constexpr std::size_t k_imported_cautions = 10; // newest imported negatives shown
inline constexpr std::size_t k_refs_shown = 3;         // attempt references per line
inline constexpr std::size_t k_kernels_shown = 3;      // kernels per line
inline constexpr std::size_t k_imported_shown = 2;     // imported identities per line
inline constexpr std::size_t k_method_notes = 20;      // Methods and seams lines shown

// `kernel_class · gfx · regime`, already normalized.
struct ReuseKey {
  std::string op_class;
  std::string gfx;
  std::string regime;

  // "gemm · gfx942 · decode" (U+00B7 separators).
  [[nodiscard]] std::string text() const;
  friend bool operator==(const ReuseKey&, const ReuseKey&) = default;
};

// Report order of keys: op_class (gemm, moe, attn, elementwise, config,
// method, unknown, then others alphabetically), then gfx, then regime.
bool key_less(const ReuseKey& a, const ReuseKey& b);
// Whether an imported finding under `a` may describe the same lever as a
// line under `b` (see the merge rule above). Symmetric.
bool key_compatible(const ReuseKey& a, const ReuseKey& b);

// True for a serving-config trial (attempt kind config, or an older row with
// lever_kind config on no kernel class).
bool is_config_trial(const AttemptInfo& attempt);
// The reuse key of an attempt (see the rules above).
ReuseKey attempt_reuse_key(const AttemptInfo& attempt);
// The lever text an attempt is shown and matched by: its lever, else its
// backend, else "unnamed lever".
std::string attempt_lever_text(const AttemptInfo& attempt);
// False when the attempt's speed says nothing about the kernel it replaced:
// its output was wrong (parity fail, or a parity/accuracy/corruption reject
// reason) or the new kernel never ran (no_engagement). Such attempts are no
// roofline misses, no routing outcome and no model contradiction.
bool speed_is_evidence(const AttemptInfo& attempt);

// Why an attempt is not a What works finding: "" when it is one, else a
// short reason ("gate rejected", "e2e inside the noise band", …).
std::string what_works_exclusion(const AttemptInfo& attempt);
// Whether an attempt is a What works finding (what_works_exclusion empty,
// without making the reason's text).
bool in_what_works(const AttemptInfo& attempt);
// The run's Director validation includes / won / lost this attempt's lever.
bool validation_includes(const AttemptInfo& attempt);
bool validation_won(const AttemptInfo& attempt);
bool validation_lost(const AttemptInfo& attempt);
// The Amdahl ceiling c = pct_gpu_time × (1 − 1/s) in percent; nullopt
// without both numbers or for s ≤ 1.
std::optional<double> amdahl_ceiling_pct(const AttemptInfo& attempt);

// Whitespace collapsed and trimmed, '\\', '<' and '>' dropped, so a text and
// its md_text rendering (in a card we wrote) give the same key.
std::string source_key(std::string_view text);
// The first sentence of free text (up to ". " or "; "), one line, at most
// `max_chars` code points.
std::string first_sentence(std::string_view text, std::size_t max_chars);

// RUN#ATTEMPT: what `rfdb show RUN --attempt ATTEMPT` prints in full.
struct AttemptRef {
  std::string run_id;
  std::string attempt_key;
  std::string run_date;
  [[nodiscard]] std::string text() const { return run_id + "#" + attempt_key; }
};

// An e2e delta more than domain::k_beyond_ceiling_factor × its Amdahl ceiling.
struct BeyondCeiling {
  AttemptRef ref;
  double e2e_pct = 0.0;
  double ceiling_pct = 0.0;
};

// A Director validation that included the lever and did not win.
struct LostValidation {
  AttemptRef ref;
  std::string validation_class;
  std::optional<double> speedup;
};

// A GEAK kb record on a What works line (report/kb_lines.hpp): one whose content signature an
// attempt of the line's runs carries (a reproduction across both worlds), or the record a kb-only
// line stands on. Its ledger counters are shown on the line ("kb: 2 validated, 0 failed, …").
struct KbSource {
  std::string record_key; // `rfdb show --finding ID`
  std::string
      identity; // "gfx950 · fused_moe_kernel · triton · rocm 7.2" (or model · gfx · framework · precision)
  std::string content_signature;
  int validations = 0, failures = 0, not_reproduced = 0, inapplicable = 0;
  int geak_reproductions = 0;             // the record's own `reproductions`
  std::vector<std::string> reproduced_by; // runs of the line whose attempt signs the same, sorted
  bool retired = false;                   // then it supports nothing: a caution note on the line
  std::string retired_why;
  std::vector<std::string> last_outcomes; // newest tested outcomes, oldest first
};

// One line of "What works".
struct Finding {
  ReuseKey key;
  std::string lever;                  // display text, one line
  std::string lever_key;              // domain::lever_key
  std::vector<std::string> spellings; // every raw lever text behind the line, sorted, unique
  std::string lever_kind;             // from the attempts ("" for imported-only lines)
  std::vector<std::string> backends;  // sorted, unique
  std::vector<std::string> kernels;   // short names, sorted, unique
  int stars = 1;                      // 1..3
  std::string tier_reason;            // e.g. "2 independent clean runs"
  std::optional<double> iso_min;      // × over baseline
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct; // percent, signed
  std::optional<double> e2e_max_pct;
  // The band its run e2e figures passed: the widest over its qualifying
  // attempts (the run's measured spread when wider than the fixed band).
  std::optional<domain::E2eBand> e2e_band;
  int confirms = 0;                       // runs + imported confirmations
  std::vector<std::string> run_ids;       // runs with a qualifying attempt, sorted
  int e2e_run_count = 0;                  // of run_ids, those whose attempt measured e2e
  std::vector<std::string> clean_run_ids; // sorted
  bool verified_e2e = false;
  std::optional<double> verified_speedup; // the Director speedup of the newest verifying run
  std::vector<std::string> gates;         // the attempts' gates ("kept" for a config trial), sorted
  std::string reason;                     // one sentence of the newest best attempt's reason
  std::vector<AttemptRef> refs;           // the k_refs_shown strongest qualifying attempts, newest first
  std::size_t ref_count = 0;              // every qualifying attempt
  std::optional<BeyondCeiling> beyond_ceiling;
  std::optional<LostValidation> lost_validation;
  std::vector<std::string> imported_identities; // imported findings merged here, sorted
  std::vector<std::string> imported_sources;    // what they cite, first-seen order, unique
  std::vector<std::string> restated_runs; // runs an imported finding merely restates ("card restates run X")
  std::vector<std::string> cautions;      // imported caution text, one line each
  int imported_stars = 0;                 // self-rated, max; 0 = no imported finding
  std::string imported_last_seen;         // newest imported date or ""
  std::vector<KbSource> kb_sources;       // kb records on the line, by record_key
  bool kb_only = false;                   // no run and no imported finding: the kb records alone
  std::string last_seen;                  // YYYY-MM-DD or "" (runs and imported)
  double freshness = 0.0;                 // 0–1
  double rank = 0.0;                      // stars × (0.25 + 0.75 × freshness)
};

// clamp(1 − days(as_of − last_seen)/365, 0, 1); 0 when either is not a date.
double freshness(std::string_view as_of, std::string_view last_seen);
// stars × (0.25 + 0.75 × freshness).
double eviction_rank(int stars, double freshness);

// Keep at most `cap` findings, evicting the lowest rank first (never a
// run-verified ★★★); returns the evicted findings in eviction order.
// `findings` keeps its order.
std::vector<Finding> apply_line_cap(std::vector<Finding>& findings, std::size_t cap);

// The findings before the cap, in report order (exposed for tests).
std::vector<Finding> build_findings(const ReportInput& scoped, std::string_view as_of);

} // namespace rfdb::report
