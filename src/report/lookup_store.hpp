// The stored runs as `rfdb lookup` evidence (report/lookup.hpp).
#pragma once

#include "report/lookup.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rfdb::report {

// A profile head (pct_gpu_time ≥ domain::k_head_min_pct) of a run not retracted, for the answer
// `rfdb lookup` gives on a kernel no lever was tried on: where it stood and what its verdict was.
struct LookupHead {
  std::string run_id, run_date, gfx, short_name, op_class, headroom_class, bound_type, source_kind;
  std::optional<std::string> round;
  std::optional<double> pct_gpu_time;          // percent 0–100
  std::optional<double> roofline_pct;          // fraction 0–1
  std::optional<double> target_eff;            // fraction 0–1
  std::optional<double> expected_e2e_gain_pct; // percent
};

// Of `heads` (run_lookup_candidates' head verdicts), those of `kernel` on `gfx` (normalized,
// "gfx950"): whose short_name equals it, else those equal to it folded (fold_kernel_name, as
// lookup resolves keys), newest run first, then round and source (measured first). Empty when
// none.
std::vector<LookupHead> lookup_heads(const std::vector<LookupHead>& heads, const std::string& kernel,
                                     const std::string& gfx);

// One LookupCandidate per measured kernel attempt of every run not retracted (serving-config
// trials are about no kernel and are left out). `win` is report::in_what_works of the attempt
// with its run's e2e band; `apply` is, in this order, the stored diff or tuning table its
// signature was computed from (apply_kind patch / tuned_table, `files` every such file), its env
// change (a lever "env: A=1 B=2" → env), a serving flag (a lever naming `--flag` → flag), else
// the lever text (other). `stack` is the run's backend and its version. With `heads`, the same
// pass (each run read once) also appends every head verdict (pct_gpu_time ≥
// domain::k_head_min_pct) of the runs that state a gfx, in run order (for lookup_heads).
// Errors: db.
Result<std::vector<LookupCandidate>> run_lookup_candidates(store::Database& db,
                                                           std::vector<LookupHead>* heads = nullptr);

// One LookupCandidate per current kb record (store::list_kb_records, docs/kb.md), source "kb":
// - kernel and experience lanes: kernel = domain::kb::canon_name(kernel_name) (GEAK's reads,
//   so `fused_moe_kernel_task` is `fused_moe_kernel`), gfx, backend (the language), dtype
//   (upstream precision), cases (`metric.case_names`; no shape: GEAK records none),
//   isolated_speedup (`speedup`, ×), lever = `direction` (else `strategy`, else the techniques),
//   apply: `apply_env` (env), else the stored patch (`…/files/patch.diff` of a session,
//   `…/patch.diff` of an experience) or tuned table (`…/artifact/` for carrier tuned_artifact)
//   when the record has a signature (else it came with neither: apply_kind other);
//   `win` when the speedup is > 1;
// - e2e lane: one candidate per `accepted_kernels` entry naming a kernel, with the model,
//   precision, workload, the entry's isolated_speedup and the session's e2e gain
//   (final / baseline throughput − 1, %), applied by the entry's `patch`: the session's stored
//   `…/files/kernels/<name>.patch` with its signature (extra.kernel_patches) when ingest stored
//   it, else the name as the record gives it.
// Every candidate carries the record's ledger counters, `reproductions` (absent = 1), retired
// state and reason, `verified_on` (else the newest attestation) as its date and
// `verified_stack` ("rocm 7.2.0-43, torch 2.9.0") as its stack. Errors: db.
Result<std::vector<LookupCandidate>> kb_lookup_candidates(store::Database& db);

} // namespace rfdb::report
