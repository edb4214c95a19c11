// Pure parsers: one eval-dir artifact (already parsed by parse_json_text)
// → typed rows whose fields are named like the columns of
// migrations/0001_init.sql. No I/O, no database.
//
// Every parser takes the document, its path relative to the eval dir (used in
// warnings, in errors, and to recover identity the file itself omits, e.g. the
// task dir before `roofline/`), and a warning sink.
//
// Tolerant/strict split (issue 2, docs/artifacts.md, "What makes an ingest fail, and what only warns"):
// missing optional keys are null, numbers-as-strings are accepted, an out-of-set closed value becomes
// "unknown" plus a Warning naming file + JSON pointer + raw value. Errors
// (invalid_input) are reserved for values that would poison calibration or
// violate a column CHECK: wrong types, pct_gpu_time outside 0–100, a zero /
// negative / non-finite speedup, a missing required key. Errors carry
// `rel_path` as their outermost context and the JSON pointer in the message,
// so callers add only the run.
//
// Fields a caller owns (run_id, source_id, round of a Top-N, bench role) are
// left empty here and documented as "set by the caller".
#pragma once

#include "ingest/json_util.hpp"
#include "store/run_records.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// Non-fatal finding. `pointer` is a JSON pointer into `file` ("" = the root).
struct Warning {
  std::string file;
  std::string pointer;
  std::string message;
  bool note = false; // informational (a skipped README, a chosen reading); never fails --strict
};

// Row types shared with the store (store/run_records.hpp): the parsers
// below fill them, store::RunWriter writes them.
using store::BenchSummary;
using store::EnvReport;
using store::KernelSample;
using store::RooflineDoc;
using store::RunOutcome;
using store::TopN;
using store::Verdict;

// One lever tried on one kernel, as one file describes it → `attempts`
// (the caller merges records with equal merge_key across files and adds
// the prediction snapshot). The parsers fill the store::Attempt members a
// file states (short_name — "config" for config-sweep trials —, candidate,
// lever, lever_kind, backend, winner_kind, op_class, regime,
// isolated_speedup, e2e_delta_pct, gate (lower-case), verdict, verdict_raw,
// output_parity, parity_kind, reason, round (only when the file states one),
// reject_reason); the derivation sets the rest (attempt_key, kind, measured,
// deployed, the prediction …) on the row it stores (ingest.cpp attempt_rows).
// A member added to store/attempt_fields.def and set here reaches the store
// with no other change.
struct AttemptRecord : store::Attempt {
  std::optional<double> pct_gpu_time;
  std::string json_pointer;
  // Not columns: integrate_result's task_dir (may differ from short_name), and
  // a config trial's change text (its merge identity).
  std::optional<std::string> task_dir;
  std::optional<std::string> config_change;
  // integrate_result's env and flag change (apply_env / accepted_env,
  // apply_flags) as written: a candidate the Director's final environment
  // or config carries is deployed (derive.cpp).
  std::optional<std::string> apply_env;
  std::optional<std::string> apply_flags;
  // Which file family the record comes from (docs/attempt-model.md): the
  // measured candidates `integrate`, `sweep`, `opbench`; the references
  // `ledger`, `accepted`, `pending`, `flagged`.
  std::string origin;
  // integrate_result: where the candidate was deployed ("" = not deployed)
  // and the callable it rebinds.
  std::optional<std::string> accepted_overlay;
  std::optional<std::string> target_callable;
  // The files that hold the candidate's implementation, as the integrate or
  // bake-off result names them (absolute or run-relative): its code patch
  // (`code_patch`, `final_patch`, `patch_path`) and its tuning table
  // (`tuning_artifact`, `tuned_config_file`). Signed by signature.hpp.
  std::optional<std::string> patch_ref;
  std::optional<std::string> table_ref;

  // Merge identity: "config|<change>" for config trials, else
  // "<short_name>|<lower-cased backend>" ("<short_name>|" with no backend).
  [[nodiscard]] std::string merge_key() const;
};

// workflow_return.json (docs/artifacts.md, "Attempts"): headline outcome + every attempt
// in the ledger and the accepted/pending/flagged lists.
struct WorkflowReturn {
  RunOutcome outcome;
  std::vector<AttemptRecord> attempts;
  // Run identity the return carries (model_name, backend, workload
  // {isl, osl, conc} at the top level or under `state`): the fallback for
  // what env_report.json lacks.
  EnvReport identity;
};

// env_report.json. tp from tp | tensor_parallel | tensor_parallel_size |
// serving_config.tp | workload.tp — never from the gpu_ids count, which also
// lists optimization GPUs. isl/osl/conc from `workload` (then top level).
// Errors: non-object document, wrong types.
Result<EnvReport> parse_env_report(const json& doc, std::string_view rel_path,
                                   std::vector<Warning>& warnings);

// bench_summary.json. throughput_tok_s_median falls back to
// output_throughput_tok_s_median (and the spread likewise). Errors: wrong
// types, a negative throughput.
Result<BenchSummary> parse_bench_summary(const json& doc, std::string_view rel_path,
                                         std::vector<Warning>& warnings);

// The throughput spread (percent) stored for a bench summary
// (docs/playbook.md, "Noise measured per run"): `stated` (the summary's
// throughput_tok_s_spread_pct, read at `stated_pointer`) is refused with a
// warning when negative, not finite or above domain::k_spread_max_pct; with
// ≥ 2 `samples` (tok/s) the spread computed from them
// (domain::spread_pct, (max − min) / median × 100) is compared: within
// domain::k_spread_rounding_pct (the producer's 2-decimal rounding) the stated
// value stands; beyond it the wider is kept and a warning on `rel_path` at the
// pointer names both values and which was kept. Fewer samples: the plausible
// stated spread, or none. A computed spread above domain::k_spread_max_pct
// (an outlier round) is not used, with a warning: the plausible stated
// spread, or none.
std::optional<double> decide_spread(std::optional<double> stated, std::string_view stated_pointer,
                                    std::span<const double> samples, std::string_view rel_path,
                                    std::vector<Warning>& warnings);

// One timed round of bench_runs.jsonl (1-based line), its aggregate
// throughputs (tok/s): output from output_throughput | output_token_throughput |
// output_throughput_tok_s, total from total_token_throughput | total_throughput |
// total_token_throughput_tok_s.
struct BenchRound {
  std::size_t line = 0;
  std::optional<double> output_tok_s, total_tok_s;
};

// bench_runs.jsonl: one JSON object a line. A line that is not a JSON
// object, or holds neither throughput, is skipped with a warning on
// "<rel_path>:<line>"; blank lines are skipped. Never fails.
Result<std::vector<BenchRound>> parse_bench_runs(std::string_view text, std::string_view rel_path,
                                                 std::vector<Warning>& warnings);

// The per-round throughputs (tok/s, file order) of `rounds` for a summary's
// metric_basis: total_tok_s for "aggregate_total_token_tok_s", else
// (aggregate_output_tok_s or none) output_tok_s; rounds without it are left out.
std::vector<double> bench_round_samples(std::span<const BenchRound> rounds,
                                        const std::optional<std::string>& metric_basis);

// profile_topN.json, both parser variants. Errors: pct_gpu_time missing,
// non-numeric or outside 0–100; a row with neither name nor short_name; a
// top_kernels that is not an array of objects.
Result<TopN> parse_profile_topn(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings);

// profile_roofline.json (analytic skill, docs/artifacts.md, "Roofline verdicts"). Errors: any
// numeric field that is not a number (incl. roofline_pct_raw), pct_gpu_time
// outside 0–100, attainable_speedup ≤ 0, entries not an array of objects.
Result<RooflineDoc> parse_profile_roofline(const json& doc, std::string_view rel_path,
                                           std::vector<Warning>& warnings);

// roofline-v1 baseline/post file (docs/artifacts.md, "Measured rooflines") → at most one measured
// verdict from the dominant case, per the §2.9 bridge. Fail-soft like the
// bridge: wrong schema, no matched dominant case or unusable metrics give a
// Warning and no verdict. Errors only for a non-object document.
Result<RooflineDoc> parse_measured_roofline(const json& doc, std::string_view rel_path,
                                            std::vector<Warning>& warnings);

// overlay/cand_*/integrate_result.json → 0 or 1 attempt. Errors: speedup
// present but ≤ 0, pct_gpu_time outside 0–100, wrong types, no short_name
// and no cand_<short> directory in rel_path.
Result<std::vector<AttemptRecord>> parse_integrate_result(const json& doc, std::string_view rel_path,
                                                          std::vector<Warning>& warnings);

// kernels/<task>/opbench_result.json → 0 or 1 attempt; none (and no warning)
// when winner_kind is "none" or measured is false.
Result<std::vector<AttemptRecord>> parse_opbench_result(const json& doc, std::string_view rel_path,
                                                        std::vector<Warning>& warnings);

// config/sweep_results.json, `{trials: […]}` or a bare array → one attempt
// per trial (short_name "config", lever_kind config).
Result<std::vector<AttemptRecord>> parse_sweep_results(const json& doc, std::string_view rel_path,
                                                       std::vector<Warning>& warnings);

// workflow_return.json. The orchestrator writes 0 for "failed / not
// measured" (docs/artifacts.md, "Attempts"): a ledger isolated_speedup of 0, a ledger
// e2e_delta_pct of 0 on a non-confirmed verdict, and 0 speedups, deltas and
// throughputs in the accepted/pending lists and the headline become null.
// Errors: negative or non-finite speedups, a ledger row without direction.
Result<WorkflowReturn> parse_workflow_return(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings);

// director_e2e_validation.json (docs/artifacts.md, "The run's headline"). throughput_speedup is
// computed as final/base when absent. Errors: speedup ≤ 0, negative
// throughputs, wrong types.
Result<RunOutcome> parse_director_validation(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings);

// What the Director's validation ran (director_e2e_validation.json): its
// final environment as "VAR=value …" (`final_env` at the top level or under
// `serving_config`, or `env` of a `final_config` object; a string, a list of
// strings or an object of VAR: value), its final serving flags (`final_flags`,
// `final_config` as a string or its `flags`) and its notes
// (`arbitration_note`, `validation_note`, `note`). Lenient: a field of another
// type is ignored.
struct DirectorFinal {
  std::string env;
  std::string flags;
  std::string note;
  std::optional<std::int64_t> tp; // serving_config.tp (or a top-level tp): a positive integer, else none
};
DirectorFinal read_director_final(const json& doc);

// Combine outcomes: each field of `upper` that is set replaces `lower`'s
// (the director file overrides workflow_return.json).
RunOutcome overlay_outcome(RunOutcome lower, const RunOutcome& upper);

// "YYYY-MM-DD" from an eval-dir basename containing "_YYYYmmdd_HHMMSS_" (or
// ending in "_YYYYmmdd_HHMMSS"); nullopt when no valid date-time is found.
std::optional<std::string> run_date_from_dir_name(std::string_view basename);

// Top-N short_name of a row that gives none (docs/artifacts.md, "Top-N rows"), from its
// (demangled) `name`: the function's own name, at most 60 characters. The
// return type, namespaces and classes, "(anonymous namespace)", template
// argument lists, parameter lists, lambdas ("{lambda(int)#1}") and a
// trailing ".kd" are skipped; `operator()` stands for the function or class
// that holds it. A plain name ("Cijk_Ailk_…", "fused_moe_kernel") is itself;
// a name of several words without a parameter or template list (a copy like
// "Memcpy HtoD (Device -> Host)") gives its first word. Total: a name with no
// identifier at all gives itself.
//   "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, int)"
//     -> "cunn_SoftMaxForward"
std::string derive_short_name(std::string_view name);

} // namespace rfdb::ingest
