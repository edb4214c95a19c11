// The evidence behind `rfdb report` (DESIGN.md §5, issues 4 and 5): findings
// per reuse key with their tiers, the line cap, cautions, saturated heads and
// routing quality. Pure: no database, no files, no clock. Implemented in
// findings.cpp (lines, tiers, cap, cautions) and analysis.cpp (scope, heads,
// routing, the shared text helpers) and cautions.cpp.
//
// Rules (the written rules of the playbook; the tests pin each one):
// - Scope. Runs, attempts, heads and rankings dated after as_of or before
//   `since`, or on another gfx than `gfx_filter`, are left out (undated rows
//   only when `since` is given); so are imported findings whose last_seen is
//   after as_of or before `since`, or whose gfx is not the filter. An as_of
//   that is not a date falls back to the newest date in the input.
// - Reuse key `kernel_class · gfx · regime`, kernel_class = op_class, gfx
//   lower-cased ("" → "unknown"), regime normalized to
//   decode|prefill|both|unknown. One line per lever within a key; a lever is
//   matched by its text, case-insensitively with whitespace collapsed and
//   markdown escapes ignored (an attempt without lever text is named by its
//   backend). A serving-config trial (lever_kind config on no kernel class:
//   a sweep flag or env measured end to end) has kernel_class "config" and
//   regime "both" unless the run recorded one; it names no kernel.
// - Positive attempt: (isolated > 1 + 3.4 %, or no isolated measurement and
//   e2e > +0.5 %), e2e not a loss (d > −0.5 % when measured), verdict not
//   dead_end/flagged. Only positive attempts and active imported findings
//   make lines ("What works" is positive only).
// - Clean run: an attempt with isolated > 1.034 and e2e > +0.5 % and gate
//   accepted. Verified e2e win: run validation_class win and gate accepted.
// - Tier: ★★★ ≥ 2 independent clean sources or a verified e2e win; ★★ one
//   clean source or ≥ 2 agreeing sources; ★ otherwise (a single run with an
//   overlapping or unverified e2e). A source is a distinct run, or an
//   independent imported finding (one that agrees; ★★+ counts as clean, as
//   kb.py bumps a card reproduced by a merge). The final tier is the max of
//   that and the imported stars.
// - Imported merge: an imported finding joins the line of its key whose
//   lever text or backend matches its lever (else its name); otherwise it
//   forms its own line. It is independent unless every source it cites is
//   already on the line (a run id of the line — "run " prefix and trailing
//   text allowed — or a source an earlier imported finding brought). A
//   non-independent finding changes nothing (round trip of our own cards).
//   Order: non-rfdb findings first, then by identity, so the result does
//   not depend on the input order. A finding citing nothing cites
//   "<origin> <identity>". Archived findings are ignored.
// - Cap: at most 40 lines; evict the lowest rank = stars × (0.25 + 0.75 ×
//   freshness), freshness = clamp(1 − days(as_of − last_seen)/365, 0, 1)
//   (0 without a valid date); ★★★ is never evicted. Ties: older last_seen,
//   then key, then lever.
// - Cautions ("also verify", never a prohibition): an isolated win
//   (s > 1.034) that lost e2e (d ≤ −0.5 %), and a model contradiction
//   (s > predicted attainable × 1.034, a usable prediction).
// - Saturated head: the latest verdict (highest round) of a kernel in a run
//   is saturated with pct_gpu_time ≥ 5.
// - Routing quality: rounds whose top by pct_gpu_time ≠ top by expected gain;
//   each pick's realized gain is its best e2e delta in that run when both
//   picks have one, else its best isolated speedup.
#pragma once

#include "report/model.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report {

inline constexpr double k_iso_noise = 0.034;      // fraction: s > 1.034 is an isolated win
inline constexpr double k_e2e_noise_pct = 0.5;    // percent: the e2e noise band
inline constexpr std::size_t k_line_cap = 40;     // What works lines (FORMATS.md §4.3)
inline constexpr double k_freshness_days = 365.0; // freshness falls to 0 over this
inline constexpr double k_head_min_pct = 5.0;     // pct_gpu_time of a head kernel

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

// True for a serving-config trial: lever_kind config and no kernel op class.
bool is_config_trial(const AttemptInfo& attempt);
// The reuse key of an attempt (see the rules above).
ReuseKey attempt_reuse_key(const AttemptInfo& attempt);
// True when the attempt's prediction is a real verdict: not suspect, headroom
// saturated|moderate|underperforming and an attainable_speedup > 0. The
// attainable 1.0 of a no-verdict row is a placeholder, not a prediction.
bool has_usable_prediction(const AttemptInfo& attempt);

// "gfx942" from " GFX942 "; "" → "unknown".
std::string normalize_gfx(std::string_view gfx);
// decode | prefill | both | unknown ("mixed", "prefill+decode" → both).
std::string normalize_regime(std::string_view regime);
// source_key, lower-cased (ASCII): the text a lever is matched by.
std::string lever_match_key(std::string_view lever);
// Whitespace collapsed and trimmed, '\\', '<' and '>' dropped, so a text and
// its md_text rendering (in a card we wrote) give the same key.
std::string source_key(std::string_view text);

// One line of "What works".
struct Finding {
  ReuseKey key;
  std::string lever;                 // display text, one line
  std::string lever_key;             // lever_match_key(lever)
  std::string lever_kind;            // from the attempts ("" for imported-only lines)
  std::vector<std::string> backends; // sorted, unique
  std::vector<std::string> kernels;  // short names, sorted, unique
  int stars = 1;                     // 1..3
  std::string tier_reason;           // e.g. "2 independent clean runs"
  std::optional<double> iso_min;     // × over baseline
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct; // percent, signed
  std::optional<double> e2e_max_pct;
  int confirms = 0;                       // runs + imported confirmations
  std::vector<std::string> run_ids;       // runs with a positive attempt, sorted
  int e2e_run_count = 0;                  // of run_ids, those whose attempt measured e2e
  std::vector<std::string> clean_run_ids; // sorted
  bool verified_e2e = false;
  std::vector<std::string> imported_identities; // independent imported findings, sorted
  std::vector<std::string> imported_sources;    // what they cite, first-seen order, unique
  std::vector<std::string> cautions;            // imported caution text, one line each
  std::string last_seen;                        // YYYY-MM-DD or ""
  double freshness = 0.0;                       // 0–1
  double rank = 0.0;                            // stars × (0.25 + 0.75 × freshness)
};

// What decides a tier (see the rules above).
struct TierEvidence {
  int agreeing_sources = 0; // distinct runs + independent imported findings
  int clean_sources = 0;    // clean runs + independent imported findings with ★★+
  bool verified_e2e = false;
  int imported_stars = 0; // max stars of independent imported findings; 0 = none
};
struct Tier {
  int stars = 1;
  std::string reason;
};
// Apply the tier rule; reason names the rule that fired.
Tier assign_tier(const TierEvidence& evidence);

// clamp(1 − days(as_of − last_seen)/365, 0, 1); 0 when either is not a date.
double freshness(std::string_view as_of, std::string_view last_seen);
// stars × (0.25 + 0.75 × freshness).
double eviction_rank(int stars, double freshness);

// Keep at most `cap` findings, evicting the lowest rank first (never ★★★);
// returns the evicted findings in eviction order. `findings` keeps its order.
std::vector<Finding> apply_line_cap(std::vector<Finding>& findings, std::size_t cap);

enum class CautionKind { e2e_loss, model_contradiction };

// A conditioned "also verify" note from a surprising negative.
struct Caution {
  CautionKind kind = CautionKind::e2e_loss;
  ReuseKey key;
  std::string run_id;
  std::string run_date;
  std::string short_name;
  std::string lever_key;
  std::string text; // one line, starts with "Also verify"
};

// One pick of a disagreeing round and what it realized in that run.
struct RealizedPick {
  std::string short_name;
  std::optional<double> best_e2e_pct;
  std::optional<double> best_isolated; // ×
};
struct RoutingDisagreement {
  RoundRanking ranking;
  std::string run_date;
  RealizedPick by_pct;
  RealizedPick by_gain;
  std::string basis;  // "e2e" | "isolated" | "" (not comparable)
  std::string winner; // "pct" | "gain" | "tie" | "undecided"
};
struct RoutingSummary {
  int rounds = 0;                                 // rankings in scope with both picks named
  std::vector<RoutingDisagreement> disagreements; // newest run first
};

// Everything the playbook and the cards render, computed once.
struct Analysis {
  std::string as_of;                        // resolved as_of ("" when no date exists at all)
  ReportInput scoped;                       // the input after the scope rules (priors untouched)
  std::vector<Finding> findings;            // shown, in report order
  std::vector<Finding> evicted;             // in eviction order
  std::vector<Caution> cautions;            // newest run first
  std::vector<HeadVerdict> saturated_heads; // newest run first, then pct desc
  RoutingSummary routing;
  std::string newest_run_id;             // "" when there are no runs/heads
  std::vector<HeadVerdict> newest_heads; // latest verdict per kernel, pct desc
};

// Compute the analysis. Deterministic: any permutation of the input vectors
// gives the same result.
Analysis analyze(const ReportInput& input);

// The findings before the cap, in report order (exposed for tests).
std::vector<Finding> build_findings(const ReportInput& scoped, std::string_view as_of);

// Cautions from the scoped attempts, deduplicated, newest run first.
std::vector<Caution> build_cautions(const std::vector<AttemptInfo>& attempts);

// Shared formatting (fixed precision, never locale-dependent).
// Round to `dp` decimals (−0 → 0) and print with exactly `dp` decimals.
std::string fixed(double value, int dp);
// "1.047×" or "1.047–1.120×"; "not measured" when absent.
std::string iso_range_text(const std::optional<double>& lo, const std::optional<double>& hi);
// "+0.31 %" or "+0.31 % to +2.10 %"; "not measured" when absent.
std::string e2e_range_text(const std::optional<double>& lo, const std::optional<double>& hi);
// "isl/osl/conc 1024/1024/64" with "?" for an absent part; "" when all absent.
std::string workload_text(const std::optional<int>& isl, const std::optional<int>& osl,
                          const std::optional<int>& conc);
// Collapse whitespace (tabs, newlines) to single spaces and trim.
std::string one_line(std::string_view text);
// At most `max_chars` code points of valid UTF-8; "…" marks a cut.
std::string truncate_utf8(std::string_view text, std::size_t max_chars);
// Star glyphs, "★★".
std::string stars_text(int stars);
// Free text made safe for one markdown line: whitespace collapsed, markdown
// punctuation backslash-escaped (`_` only at word edges), bare URLs wrapped
// in <…>, so user text cannot trip markdownlint or start a structure.
std::string md_text(std::string_view text);
// An identifier in a code span (`fused_moe_kernel`); md_text when the text
// holds a backtick or '|', "-" when empty.
std::string md_code(std::string_view text);

} // namespace rfdb::report
