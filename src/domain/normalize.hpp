// Closed-set vocabularies: map the labels producers write (docs/artifacts.md, "How the fields are mapped")
// onto the canonical values the schema's CHECK constraints allow
// (domain/vocab.hpp), and the small derived rules built on them (round order,
// lever kinds). The roofline rules are in domain/roofline.hpp.
//
// Normalizers return the canonical value and whether the input was a known
// spelling, so the caller can warn "<file> <pointer>: unknown bound_type
// 'dispatch'" and keep the raw text beside the canonical column.
// Comparisons ignore case, surrounding spaces, and treat '-' and ' ' as '_'.
#pragma once

#include "domain/vocab.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace rfdb::domain {

// A canonical value (always one of the closed set, pointing at static text)
// and whether the raw label was recognized. Unrecognized ⇒ value "unknown".
struct Normalized {
  std::string_view value;
  bool recognized = false;
};

// op_class: gemm | moe | attn | elementwise | unknown. Accepts producer
// labels: "dense_gemm", "library_gemm", "grouped_gemm", "moe_grouped_gemm",
// "attention", "paged_attention", "library_attn", "norm", "quant", …
Normalized normalize_op_class(std::string_view raw);

// op_class for a kernel that has no explicit op_class, from its Top-N
// `classification` (docs/artifacts.md, "Top-N rows", may be empty) and kernel name. Name
// rules first (a "fused_moe" symbol is MoE whatever its class), then the
// classification. recognized = false when no rule matched (value unknown).
Normalized op_class_from_top_n(std::string_view classification, std::string_view name);

// bound_type: memory | compute | latency | unknown ("memory_bound", "memory-
// bound" accepted). "dispatch" and other words are unrecognized.
Normalized normalize_bound_type(std::string_view raw);

// The measured bridge's observed_limit → bound_type map, docs/artifacts.md, "Measured rooflines":
// compute/balanced→compute, hbm/cache/lds→memory,
// latency_occupancy/overhead→latency, anything else→unknown.
std::string_view bound_type_from_observed_limit(std::string_view observed_limit);

// headroom_class: underperforming | moderate | saturated | unknown.
Normalized normalize_headroom_class(std::string_view raw);

// confidence: low | medium | high ("med" accepted).
Normalized normalize_confidence(std::string_view raw);

// Roofline stage: "A" | "B" | "C" (also "a", "stage B", "stage_c").
Normalized normalize_stage(std::string_view raw);

// Confidence implied by a stage when a verdict states none (docs/glossary.md, "Confidence"):
// A → low, B → medium, C → high.
std::string_view confidence_for_stage(std::string_view stage);

// band_headroom and seed_target_eff: domain/roofline.hpp.

// Director validation_status → win | no_win | flagged | unknown
// (docs/artifacts.md, "The run's headline"): accepted/validated_win → win, validated_no_win/rejected
// → no_win, flagged → flagged. The documented open values (unknown,
// phase_partial, *_no_number_used_carried_ab) are recognized but map to
// unknown: no number was validated.
Normalized validation_class(std::string_view validation_status);

// Orchestrator-ledger / Architect verdict → attempt verdict
// (confirmed|partial|dead_end|flagged|incomplete|unknown), docs/glossary.md, "Verdict (attempt)":
// confirmed_corrective and candidate_passed → confirmed, candidate_rejected →
// dead_end, candidate_incomplete → incomplete.
Normalized attempt_verdict_from_ledger(std::string_view verdict);

// Integrate gate (accepted|stack|rejected|incomplete, docs/artifacts.md, "Attempts") →
// attempt verdict. accepted/stack → confirmed only when e2e_delta_pct > 0
// (throughput actually rose, as the ledger's `confirmed` requires), else
// partial (engaged, parity held, no e2e gain shown); rejected → dead_end;
// incomplete → incomplete. Unrecognized gate → unknown, recognized = false.
Normalized attempt_verdict_from_gate(std::string_view gate, std::optional<double> e2e_delta_pct);

// Opbench gate (docs/artifacts.md, "Attempts", case-insensitive; absent = have_winner) →
// attempt verdict: have_winner → incomplete (an isolated winner with no e2e
// A/B yet), no_win → dead_end, tamper → flagged, anything else → unknown.
std::string_view attempt_verdict_from_opbench_gate(std::string_view gate);

// True when an attempt's output was wrong: output_parity (as stored) `fail`,
// or the integrate reject word parity_regression / accuracy_regression /
// output_corruption. Its speed then says nothing about the kernel.
bool parity_failed(std::string_view output_parity, std::string_view reject_reason);

// Sort key for a profile round label (the R of round_<R>, a "round_" prefix
// is ignored): "0"→0, "config"→10, "head"→20, "fusion_capture"→30, integer
// N ≥ 1 → 100·N (N up to 1 000 000), any other label → 5000.
int round_order(std::string_view round);

// What an attempt states about its lever; every field may be empty.
struct LeverFacts {
  std::string_view origin;      // sweep_results | integrate_result | opbench_result | ledger | accepted
  std::string_view winner_kind; // env | flag | patch | authored | direct_light | none | …
  std::string_view backend;     // aiter | hipblaslt | triton | ck | …
  std::string_view text;        // change / lever description (no kernel names)
};

// lever_kind (config|tuning|authored|backend|fusion|precision|other), first
// rule wins: sweep trials and winner_kind flag → config; "fusion" in the text
// or winner_kind fusion → fusion; precision words ("precision",
// "kv-cache-dtype", "quantiz") → precision; winner_kind env/tuned or "tuned"
// in the text → tuning; winner_kind patch/authored/rewrite → authored; a
// backend named → backend; else other.
std::string_view lever_kind_for(const LeverFacts& facts);

// "gfx950" from "GFX950", " gfx950 " (ASCII whitespace trimmed),
// "gfx950:sramecc+:xnack-" (target features after the first ':' dropped),
// "MI355X" or "mi355x_oam"; nullopt when the text is
// neither gfx-shaped (gfx + letters/digits) nor a known device name.
std::optional<std::string> normalize_gfx(std::string_view text);

// The gfx of a grouping key: whitespace collapsed and trimmed, then
// normalize_gfx, else the text lower-cased ("" → "unknown"). " GFX950 " and
// "MI355X" → "gfx950"; "rdna?" → "rdna?".
std::string gfx_key(std::string_view text);

// An imported card's `- dead-end:` bullets are stored among its cautions
// behind this prefix: imported negatives the playbook turns into Cautions.
inline constexpr std::string_view k_dead_end_prefix = "dead-end: ";

// The op_class of a grouping key: whitespace collapsed and trimmed, lower-
// cased, "" → "unknown". Stored op_class values pass unchanged; the reuse-key
// classes config and method (ReuseClass) too.
std::string op_class_key(std::string_view text);

// ---- reuse vocabulary (normalize_lever.cpp) --------------------------------
// One spelling of a regime and of a lever for run attempts, imported cards
// and playbook lines alike, so the same lever gets the same reuse key
// wherever it was written down. The raw strings are always kept beside.

// Regime of a reuse key or a calibration group: "both", "mixed", "any",
// "all", "prefill+decode" (or text naming decode and prefill) → both; text
// naming only decode ("decoding") or only prefill ("prompt") → that one;
// anything else (n/a, launch-bound, small-batch, "") → unknown.
Regime regime_of(std::string_view raw);
// The stored spelling of regime_of: decode | prefill | both | unknown.
std::string normalize_regime(std::string_view raw);

// Lever text folded for comparison: lower-case words, every run of other
// characters one space, `<placeholders>` and file/path values of env
// assignments dropped (`X=<a.csv>` → `x`), spelling synonyms applied
// (split-k/split_k/splitk → splitk, hipBLASLt, composable kernel → ck,
// TunableOp, cuda/hip graph …), leading kind words removed ("config:",
// "env", "flag", "export"). "--attention-backend=triton" and
// "config: --attention-backend triton" both fold to "attention backend triton".
std::string fold_lever_text(std::string_view text);

// The key of a lever the table knows under several descriptions
// ("attention_backend=triton", "aiter_tuned_gemm", "moe_config_tune",
// "tunableop", "splitk", …): the one named first in `text` among those that
// can belong to `op_class` ("" or "unknown": any); "" when it names none.
std::string known_lever(std::string_view text, std::string_view op_class = "");

// The key of a text that names one serving flag, whatever it says around
// it: "--name" with '-' folded to '_', plus "=value" when the value is
// given as `--name=value`, as the whole text `--name value`, or inside the
// flag's code span (`--name value`). "" when it names no flag or several.
// "config: --max-num-batched-tokens 16384" → "--max_num_batched_tokens=16384";
// "Pass `--async-scheduling` to the server" → "--async_scheduling".
std::string flag_lever(std::string_view text);

// True for the lever text ingest writes for a variant of an authored kernel
// or code patch: "authored <backend> kernel (<variant>)" or
// "code patch (<backend>, <variant>)", the variant one of split-K, split-KV,
// stream-K, decode-tile, whole-file (any case).
bool is_authored_variant(std::string_view text);

// The reuse key of a lever: an authored variant (is_authored_variant) is
// its own folded text ("authored triton kernel splitk": the kernel, not the
// split-K technique it uses); else known_lever(text, op_class), else
// flag_lever(text), else fold_lever_text(text).
std::string lever_key(std::string_view text, std::string_view op_class = "");

} // namespace rfdb::domain
