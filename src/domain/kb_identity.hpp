// GEAK's kb identity rules (GEAK-KB §1, read from GEAK's kb/identity.py @ 14b10f5a
// and kb/store_local.py) and the champion promotion rule (§2.3, LocalKBStore.maybe_promote):
// how a kernel or an e2e (serving) measurement is addressed in a GEAK kb store, so rfdb writes
// (and reads) the same canonical ids, rung ladders and session ids GEAK does. Pure: no files.
//
// "GEAK-KB §N" is a section of the GEAK kb format notes issue 31 was written from; the rules as
// rfdb uses them are stated in docs/kb-export.md.
//
// A canonical id is `geak:<domain>:<segment>:…`; split on ':' it is the directory path of its
// identity under a store root (§2.1). Every segment matches k_segment_pattern.
#pragma once

#include "util/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain::kb {

// The producer segment of the sessions `rfdb export --kb` writes (docs/kb-export.md): their
// session ids start "rfdb-", and their documents say `producer` / `value.measured_by` "rfdb".
// `rfdb ingest` of such a tree skips them: their evidence is the runs rfdb already holds.
inline constexpr const char* k_rfdb_producer = "rfdb";

// §1.1 constants.
inline constexpr std::string_view k_scheme = "geak";
inline constexpr std::string_view k_kernel_domain = "kernel";
inline constexpr std::string_view k_e2e_domain = "e2e";
inline constexpr std::string_view k_kernel_framework = "rocm"; // constant for every kernel language
inline constexpr std::string_view k_unknown = "unknown";
inline constexpr std::string_view k_unknown_version = "unspecified";
inline constexpr std::string_view k_workload_agentx = "agentx_trace_replay";
inline constexpr std::string_view k_workload_synthetic = "synthetic_isl_osl";
inline constexpr std::string_view k_agentx_segment = "wl_agentx";
inline constexpr std::size_t k_name_budget = 48;        // legible part of a session id (§1.7)
inline constexpr std::size_t k_fingerprint_hex = 12;    // id fingerprint in a session id (§1.7)
inline constexpr std::size_t k_segment_max_chars = 256; // a folded segment is cut to this (§1.2)
// §1.3: a segment (the service's own check) and a session id (store_local.py).
inline constexpr std::string_view k_segment_pattern = "^[a-z0-9_][a-z0-9._+-]*$";
inline constexpr std::string_view k_session_id_pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";

// §1.2 `segment(value, fallback)`: lower-cased and trimmed; every run of characters outside
// [a-z0-9._+-] becomes one '-' (non-ASCII bytes are outside, so they fold too); leading
// characters outside [a-z0-9_] are removed, then '-' is stripped from both ends; cut to 256
// characters; empty → `fallback` (returned as given). "Qwen3-235B-A22B" → "qwen3-235b-a22b",
// "FP8-w8a8" → "fp8-w8a8", "_attn_fwd" → "_attn_fwd". Never fails.
std::string segment(std::string_view value, std::string_view fallback = k_unknown);

// §1.3: whether `text` matches k_segment_pattern / k_session_id_pattern.
bool is_valid_segment(std::string_view text);
bool is_valid_session_id(std::string_view text);

// §1.3 `check(cid)`: a canonical id has at least two ':'-separated parts and every part is a
// valid segment. Errors: invalid_input naming the first bad segment's index (0-based) and text.
Result<void> check_canonical_id(std::string_view cid);

// §1.4 `counted(prefix, value)`: "<prefix>_<n>" for a positive integer `value` (text, trimmed;
// "8" → "tp_8"), else "" — which removes the rung that would carry it, never a placeholder.
std::string counted(std::string_view prefix, std::string_view value);
std::string counted(std::string_view prefix, std::optional<int> value);

// §1.5 `_short_version`: the ROCm address cut. "" (or blank) → "unspecified"; a leading
// \d+(\.\d+)? → "<major>.<minor>" ("7.2.0-98765" → "7.2", "7" → "7"); anything else is
// segment-folded and kept. Only the address is coarse; the exact string stays in
// value.verified_stack.rocm.
std::string short_rocm_version(std::string_view raw);

// §1.6 `_release_version`: the serving-framework address cut (PEP 440 release). Trimmed, an
// optional leading 'v' dropped, then up to three numeric components \d+(\.\d+){0,2} from the
// start, not padded ("0.5.15.post1.dev20260723+g6c9fd0adc5" → "0.5.15", "0.5.15rc1" → "0.5.15",
// "2" → "2"); blank → "unspecified"; text not starting with a digit is folded and kept
// ("nightly-main"). Idempotent.
std::string release_version(std::string_view raw);

// §3.1 `canon_name(kernel_name)`: the basename, then repeatedly a leading triton_/hip_/ck_/
// cuda_/torch_ (any case) and a trailing .py/.hip/.cu/.cpp/_task removed while the name is
// longer than the affix; case kept. "triton_fused_moe_kernel.py" and "fused_moe_kernel_task"
// → "fused_moe_kernel". The kernel lane folds this with segment().
std::string canon_name(std::string_view kernel_name);

// §1.5 `_norm_gfx`: the first "gfx<digits>" in `text`, lower-cased ("AMD gfx950 (MI355X)" →
// "gfx950"); "" when there is none (GEAK refuses such a kernel write: missing_arch).
std::string norm_gfx(std::string_view text);

// §1.5 kernel identity: every member folded.
struct KernelIdentity {
  std::string gpu;               // segment(gfx)
  std::string kernel_name;       // segment(name)
  std::string backend;           // segment(backend): the kernel language (triton, hip, ck …)
  std::string framework_version; // short_rocm_version(rocm)
};

// §1.5 `kernel_identity(gfx, kernel_name, backend, rocm_version)`: each folded with fallback
// "unknown", the ROCm version cut by short_rocm_version. The kernel name is taken as given
// (the kernel lane passes canon_name(name) first).
KernelIdentity kernel_identity(std::string_view gfx, std::string_view kernel_name, std::string_view backend,
                               std::string_view rocm_version);

// §1.5 kernel ladder, most specific first, both always written:
// rung 0 "geak:kernel:{gpu}:{kernel_name}:{backend}:rocm:{framework_version}",
// rung 1 "geak:kernel:{gpu}:{kernel_name}:{backend}:rocm".
std::vector<std::string> kernel_ladder(const KernelIdentity& id);

// §1.6 e2e identity: folded members; tp/ep/isl/osl/conc are counted() segments ("" = absent).
struct E2eIdentity {
  std::string model;
  std::string gpu;
  std::string framework; // the serving stack: vllm, sglang …
  std::string framework_version;
  std::string precision;
  std::string tp, ep, isl, osl, conc;
  std::string workload_kind; // raw, lower-cased, not folded ("" = synthetic)
};

// §1.6 `e2e_identity(...)`: model/gfx/framework/precision folded (fallback "unknown"), the
// framework version cut by release_version, the numbers counted(), workload_kind trimmed and
// lower-cased.
struct E2eInputs {
  std::string_view model{}, gfx{}, framework{}, framework_version{}, precision{};
  std::optional<int> tp{}, ep{}, isl{}, osl{}, conc{};
  std::string_view workload_kind{};
};
E2eIdentity e2e_identity(const E2eInputs& in);

// §1.6 e2e ladder, most specific first (1–3 rungs): base = "geak:e2e:{model}:{gpu}:{framework}:
// {framework_version}:{precision}"; "base:{tp}[:{ep}]:{workload}" when tp and a workload exist,
// "base:{tp}[:{ep}]" when tp exists, "base" always. Workload: "isl_N:osl_N:conc_N" (all three
// needed), or for agentx_trace_replay "wl_agentx:conc_N" (conc needed). ep only after tp.
std::vector<std::string> e2e_ladder(const E2eIdentity& id);

// §1.7 `session_id(exact_cid, name, digest, producer)`: "{segment(producer)}-{legible}-{fp}-
// {port}" with outer '-' stripped; legible = `name` with runs outside [A-Za-z0-9._-] → '-',
// stripped of "-.", cut to 48, stripped again, empty → "unknown"; fp = the first 12 hex of
// SHA-256(exact_cid) (the rung-0 id); port = `digest` without characters outside
// [A-Za-z0-9._-], first 12. The same id is used on every rung.
// Example: ("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2", "fused_moe_kernel",
// "4b3227c7e42ea185afcd6249b62c0476") → "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e".
std::string session_id(std::string_view exact_cid, std::string_view name, std::string_view digest,
                       std::string_view producer = k_scheme);

// A canonical id read back into its parts (either domain).
struct ParsedIdentity {
  std::string domain; // "kernel" | "e2e"
  // Its place in the ladder its own parts rebuild (kernel: 0 with the version, 1 without; e2e:
  // always 0, since a coarse e2e id cannot tell which finer ids were written beside it).
  int rung = 0;
  // kernel: its identity and whether the version segment was present (rung 0).
  KernelIdentity kernel;
  bool has_version = false;
  // The OLD kernel ordering of store_local.py's docstring and tests (§11):
  // "geak:kernel:<producer>:<kernel>:rocm:<ver>:<backend>:<gfx>"; its producer.
  bool old_order = false;
  std::string producer;
  // e2e: its identity (workload_kind "agentx_trace_replay" for a wl_agentx tail).
  E2eIdentity e2e;
};

// Parse a canonical id written by kernel_ladder / e2e_ladder (any rung), or a kernel id in the
// OLD ordering (8 segments, segment 4 "rocm", segment 7 "gfx<digits>"; §11). Errors:
// invalid_input for an id check_canonical_id refuses, another scheme or domain, or a segment
// count/shape that no ladder writes (named in the message).
Result<ParsedIdentity> parse_canonical_id(std::string_view cid);

// §2.3 the ranking metric of an identity's champion.
inline constexpr std::string_view k_metric_speedup = "speedup";
inline constexpr std::string_view k_metric_throughput = "throughput_tok_s";

// A rung's champion rule (§2.3): the metric it ranks by and its promote floor.
struct PromotionLane {
  std::string_view metric;
  double floor = 1.0;
};
// Kernel lane: speedup, floor 1.0 on every rung.
PromotionLane kernel_lane(int rung);
// E2E lane: the exact-workload rung (rung 0 of a 3-rung ladder) throughput_tok_s floor 0.0;
// every other rung speedup floor 1.0.
PromotionLane e2e_lane(int rung, std::size_t ladder_size);

// An identity's champion.json: {"metric", "session_id", "value"}.
struct Champion {
  std::string metric;
  std::string session_id;
  double value = 0.0;
};

// §2.3 `maybe_promote` (upstream's gate): whether a session scored `score` under `lane`
// replaces `incumbent`. Promotes only when the score is finite, strictly above lane.floor, and
// — when an incumbent was recorded under the same metric — strictly above its value (ties never
// promote; an incumbent under another metric counts as none). A score that is not a number
// (JSON bool/string, NaN, ±inf) is passed as nullopt / non-finite and never promotes.
bool should_promote(std::optional<double> score, const PromotionLane& lane,
                    const std::optional<Champion>& incumbent);

} // namespace rfdb::domain::kb
