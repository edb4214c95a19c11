// Rows of a derived run as the store writes them: the identity and outcome
// of `runs`, `bench_summaries`, `profile_rounds` + `kernel_samples`,
// `roofline_docs` + `verdicts`, and `attempts` + `attempt_sources` (store::Attempt,
// store/attempt.hpp). Plain
// structs whose fields are named like the columns of migrations/0001_init.sql;
// ingest's parsers fill them (ingest/evaldir/artifacts.hpp names them in
// rfdb::ingest too), store/run_writer.hpp writes them.
#pragma once

#include "domain/prediction.hpp"
#include "domain/roofline.hpp"
#include "store/attempt.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::store {

// env_report.json (docs/artifacts.md, "How a run is identified") → the identity columns of `runs`.
struct EnvReport {
  std::optional<std::string> model;
  std::optional<std::string> model_arch_class;
  std::optional<std::string> model_dtype;
  std::optional<std::string> gfx;
  std::optional<std::string> device_name;
  std::optional<std::string> backend; // serving stack: vllm | sglang | …
  std::optional<std::string> backend_version;
  std::optional<std::int64_t> tp;
  std::optional<std::int64_t> isl;
  std::optional<std::int64_t> osl;
  std::optional<std::int64_t> conc;
  std::optional<std::string> available_backends; // JSON array text
  // The run's stated limitations (`limitations`, strings verbatim, file
  // order) → `run_limitations` (migration 0015); non-string entries dropped
  // with a warning.
  std::vector<std::string> limitations;
};

// Headline outcome columns of `runs`, from director_e2e_validation.json or
// workflow_return.json. Throughputs tok/s; throughput_speedup × final/base.
struct RunOutcome {
  std::optional<std::string> model; // producer's model_name
  std::optional<double> baseline_throughput_tok_s;
  std::optional<double> final_throughput_tok_s;
  std::optional<double> throughput_speedup;
  std::optional<std::string> validation_status; // raw string
  std::string validation_class = "unknown";     // win | no_win | flagged | unknown
  std::optional<std::string> output_parity;
};

// bench_summary.json (docs/artifacts.md, "The files, in the order a run writes them") → `bench_summaries`.
struct BenchSummary {
  std::string role;                              // set by the caller (baseline | validation_base | …)
  std::optional<std::string> label;              // set by the caller
  std::optional<double> throughput_tok_s_median; // tok/s, aggregate
  std::optional<double> throughput_spread_pct;   // percent
  std::optional<double> ttft_ms_median;
  std::optional<double> tpot_ms_median;
  std::optional<std::int64_t> runs_count;
  std::optional<std::string> metric_basis;
  std::optional<std::string> measurement_mode;
  // The per-repetition throughputs (`all_throughput`, tok/s, file order; when it
  // is absent or empty, the rounds of bench_runs.jsonl in the same directory)
  // → `bench_samples` (migration 0015); non-numeric entries dropped with a warning.
  std::vector<double> throughput_samples;
  // Ingest only (not stored): the JSON pointer the stated spread was read
  // from ("/throughput_tok_s_spread_pct", its output_ fallback, or "" for none),
  // for the warnings of ingest::decide_spread.
  std::string spread_pointer;
};

// One Top-N row → `kernel_samples`.
struct KernelSample {
  std::optional<std::int64_t> rank;
  std::string name;
  std::string short_name;
  double pct_gpu_time = 0.0; // percent 0–100
  std::optional<double> raw_pct_gpu_time;
  std::optional<double> total_ms;
  std::optional<std::int64_t> calls;
  std::optional<double> avg_us;
  std::optional<std::string> classification;
  std::optional<std::string> backend_guess;
  std::optional<bool> editable;
  std::optional<std::string> phase;
  std::optional<std::string> base_latency_ms; // JSON {phase: ms per launch}
  std::optional<std::string> shapes;          // JSON
  std::optional<std::string> dtypes;          // JSON
  std::string json_pointer; // the row in its file (the stored text holds the row's full JSON)
};

// profile_topN.json (docs/artifacts.md, "Top-N rows") → one `profile_rounds` row + samples.
struct TopN {
  std::string round;                        // set by the caller (the R of round_<R>)
  int round_order = 0;                      // set by the caller (normalize.hpp round_order)
  std::optional<std::string> parser_source; // raw `source`
  std::string variant;                      // "A" | "B" | "tracelens"
  std::optional<double> total_gpu_time_ms;
  std::optional<std::int64_t> num_kernel_launches;
  std::optional<std::int64_t> num_distinct_kernels;
  std::vector<KernelSample> rows;
};

// One roofline verdict → `verdicts`. Fractions: roofline_pct, target_eff,
// hbm_util, compute_util; percents: pct_gpu_time, expected_e2e_gain_pct,
// roofline_efficiency_pct; × : attainable_speedup, headroom_ratio.
struct Verdict {
  std::optional<std::string> round; // set by the caller
  std::optional<int> round_order;   // set by the caller
  std::string short_name;
  std::optional<std::string> name;
  std::string op_class = "unknown";
  std::optional<std::string> op_class_raw;
  std::optional<std::string> regime;
  std::optional<double> pct_gpu_time;
  std::optional<double> t_ms;
  std::optional<double> launches_per_step;
  std::optional<double> bytes_est;
  std::optional<double> flops_est;
  std::optional<double> hbm_util;
  std::optional<double> compute_util;
  std::optional<double> arithmetic_intensity;
  std::optional<double> ridge_point;
  std::string bound_type = "unknown";
  std::optional<std::string> bound_type_raw;
  std::optional<double> roofline_pct;
  std::optional<double> roofline_pct_raw;
  std::optional<double> target_eff;
  std::optional<double> attainable_speedup;
  std::optional<double> expected_e2e_gain_pct;
  std::string headroom_class = "unknown";
  std::optional<std::string> headroom_class_raw;
  std::string stage = "A";
  std::string source_kind = "analytic"; // analytic | measured
  std::string confidence = "low";
  bool suspect = false;
  bool dispatch_bound = false;
  std::optional<bool> modeled;
  std::optional<std::string> phase;
  std::optional<std::string> case_id;
  std::optional<std::string> observed_limit;
  std::optional<double> headroom_ratio;
  std::optional<double> roofline_efficiency_pct;
  // measured: the engine's guidance for the dominant case (roofline-v1
  // guidance.cases[].reason: actionable, low_headroom, …), and whether the
  // verdict is disputed (domain::is_disputed: rfdb's band saturated, the
  // engine's headroom_ratio ≥ 1.25 or guidance actionable).
  std::optional<std::string> guidance;
  bool disputed = false;
  // measured, ≥ 2 matched cases with time shares: every matched case
  // (verdicts.case_mix, JSON); attainable_speedup is then their Amdahl mix
  // and regime the mix's (domain::case_mix_attainable, case_mix_regime).
  std::vector<domain::CaseShare> case_mix;
  // measured: the profiler version the roofline-v1 document states
  // (`tool_version`, else `tool.version.text`; verdicts.profiler_version), and
  // whether that profiler under-counts HBM bytes on the run's gfx
  // (domain::profiler_undercounts_hbm; derive_run sets it once the run's gfx
  // is known; false when the version is unknown).
  std::optional<std::string> profiler_version;
  bool profiler_hbm_undercount = false;
  std::optional<std::string> byte_reduction_levers; // JSON array
  std::string json_pointer; // the entry in its file (the stored text holds its full JSON)
};

// profile_roofline.json or a roofline-v1 file → `roofline_docs` + verdicts.
struct RooflineDoc {
  std::string source_kind = "analytic";
  std::optional<std::string> round; // set by the caller for analytic docs
  std::string stage = "A";
  std::optional<std::string> phase; // measured: baseline | post
  std::optional<std::string> task;  // measured: path component before roofline/
  std::optional<std::string> gfx;
  std::optional<std::string> peaks;                    // JSON
  std::optional<std::string> ranking_by_pct;           // JSON array
  std::optional<std::string> ranking_by_expected_gain; // JSON array
  std::optional<std::string> degraded;                 // JSON
  std::optional<std::string> skill_errors;             // JSON
  std::vector<Verdict> verdicts;
};

// One package of a run's stack → `run_stack` (migration 0014, issue 30).
// Packages are PEP 503 names (domain::normalize_package): the backend under
// its own name (vllm | sglang …), torch, rocm, aiter, triton, flydsl,
// rocprof-compute, and any other `<package> <version>` line of env_info.txt.
struct StackRow {
  std::string package;
  std::string raw;                    // the version string as recorded (rocm: the string it was read from)
  std::optional<std::string> release; // PEP 440 release part, "0.26.1"; nullopt when raw is not a version
  std::string source;                 // rel_path of the file it came from
  std::optional<std::string> via;     // rocm only: torch | <backend> | install path
};

// Identity + outcome columns of `runs`.
struct RunRow {
  std::string run_id;
  std::optional<std::string> run_date;
  EnvReport env;
  RunOutcome outcome;
};

// A roofline doc with the source it was read from; superseded docs keep
// their verdicts, marked superseded.
struct DocRecord {
  std::int64_t source_id = 0;
  RooflineDoc doc;
  bool superseded = false;
};

} // namespace rfdb::store
