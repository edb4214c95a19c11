// Reading runs back: the summaries behind `rfdb runs` and the full record
// behind `rfdb show`, plus retract/restore. Units: pct_gpu_time and
// *_pct are percent 0–100, roofline_pct and target_eff fractions 0–1,
// speedups × over baseline, throughputs tok/s.
#pragma once

#include "domain/prediction.hpp"
#include "domain/version.hpp"
#include "store/attempt.hpp"
#include "store/database.hpp"
#include "store/run_records.hpp"
#include "store/tags.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::store {

struct RunSummary {
  std::string run_id;
  std::optional<std::string> run_date, model, gfx, backend, backend_version;
  std::optional<std::string> model_dtype; // read by the report only (int4, bf16, fp8 …)
  std::optional<std::int64_t> isl, osl, conc, tp;
  std::optional<double> baseline_throughput_tok_s, final_throughput_tok_s, throughput_speedup;
  std::string validation_class;
  std::int64_t rounds = 0, verdicts = 0, attempts = 0, sources = 0;
  std::optional<std::string> retracted_reason;
  std::vector<StackRow> stack;   // run_stack, by package (store/stack.hpp)
  std::vector<domain::Tag> tags; // run_tags, by key (store/tags.hpp)
  // The widest throughput spread (percent) of the run's reference bench
  // summaries (domain::is_reference_bench_role; measured_spread_pct below):
  // `rfdb runs` prints the band it makes, the report judges e2e deltas by it.
  std::optional<double> measured_spread_pct;
};

struct KernelRow {
  std::string round;
  std::optional<std::int64_t> rank;
  std::string short_name, name;
  double pct_gpu_time = 0;
  std::optional<std::string> classification;
  std::optional<bool> editable;
  std::optional<double> total_ms;
  std::optional<std::int64_t> calls;
};

struct VerdictRow {
  std::optional<std::string> round;
  std::string short_name, op_class, stage, source_kind;
  std::optional<double> roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::string headroom_class, bound_type, confidence;
  bool suspect = false;
  std::optional<std::string> phase;
  std::optional<double> pct_gpu_time;
  bool dispatch_bound = false;
  // measured: the engine's headroom_ratio (×), guidance and observed_limit;
  // disputed = its engine disputes a saturated band (domain::is_disputed).
  std::optional<double> headroom_ratio;
  std::optional<std::string> guidance, observed_limit;
  bool disputed = false;
  // measured: the profiler version its document states, and whether that
  // profiler under-counts HBM bytes on the run's gfx (domain::profiler_undercounts_hbm).
  std::optional<std::string> profiler_version;
  bool profiler_hbm_undercount = false;
};

// One attempt as `rfdb show` reads it (docs/attempt-model.md): the members of
// store/attempt_fields.def marked S, the files citing it and a note on a
// stacked post measurement. Speedups × over baseline, deltas and
// pct_gpu_time percent 0–100, post_efficiency a fraction 0–1.
struct AttemptRow : Attempt {
  std::vector<std::string> sources; // rel paths, sorted
  // "post measured a stack of N levers" when the post roofline measured N
  // deployed attempts on this kernel together (none gets its efficiency).
  std::optional<std::string> post_note;
};

// One retract or restore of a run.
struct RetractionEvent {
  std::string action; // retract | restore
  std::optional<std::string> reason;
  std::string at; // ISO-8601 UTC timestamp
};

// One bench summary of a run with the per-repetition throughputs it
// recorded (tok/s, file order; migration 0015): median and spread
// (percent, (max − min) / median × 100) as the summary states them.
struct BenchNoiseRow {
  std::string role;
  std::optional<std::string> label;
  std::optional<double> median_tok_s, spread_pct;
  std::optional<std::int64_t> runs_count;
  std::vector<double> samples;
};

// The run's measured e2e spread (percent): the widest spread_pct of its
// reference bench summaries (domain::is_reference_bench_role: baseline,
// validation base, overlay reference); nullopt when none states one. The one
// rule `rfdb show`, `rfdb runs` and `rfdb lookup` judge a run's band by
// (domain::run_e2e_band); queries/report_runs.sql, runs_list.sql and
// playbook_cautions.sql state it in SQL with the same roles.
std::optional<double> measured_spread_pct(const std::vector<BenchNoiseRow>& bench);

struct RunDetail {
  std::string run_id;
  std::optional<std::string> run_date, model, model_arch_class, model_dtype, gfx, device_name;
  std::optional<std::string> backend, backend_version;
  std::optional<std::int64_t> tp, isl, osl, conc;
  std::optional<double> baseline_throughput_tok_s, final_throughput_tok_s, throughput_speedup;
  std::optional<std::string> validation_status;
  std::string validation_class;
  std::optional<std::string> output_parity, retracted_reason, retracted_at;
  std::vector<KernelRow> kernels;
  std::vector<VerdictRow> verdicts;
  std::vector<AttemptRow> attempts;
  std::vector<RetractionEvent> retraction_history; // oldest first
  std::vector<StackRow> stack;                     // run_stack, by package (store/stack.hpp)
  std::vector<domain::Tag> tags;                   // run_tags, by key (store/tags.hpp)
  std::vector<TagEvent> tag_history;               // tag_log, oldest first
  std::vector<BenchNoiseRow> bench;                // by role, label
  std::vector<std::string> limitations;            // env_report.json `limitations`, file order
};

// All runs, oldest first. Retracted runs only with IncludeRetracted::yes
// (or only them with ::only).
enum class IncludeRetracted { no, yes, only };
Result<std::vector<RunSummary>> list_runs(Database& db, IncludeRetracted include);

// Which runs `rfdb runs` lists; unset filters match every run.
struct RunFilter {
  IncludeRetracted include = IncludeRetracted::no;
  std::optional<std::string> gfx, backend; // exact, any case
  std::optional<std::string> model;        // a part of the model name, any case
  std::optional<std::string> since, until; // run_date range, inclusive (YYYY-MM-DD)
  std::vector<domain::StackSpec> stack;    // --stack specs, all must hold (store::stack_matches)
  std::vector<domain::Tag> tags;           // --tag key=value, all must hold (domain::tags_match)
};
Result<std::vector<RunSummary>> list_runs(Database& db, const RunFilter& filter);

// One run with its Top-N rows, current verdicts and attempts.
// Errors: not_found when no run has that id.
Result<RunDetail> get_run(Database& db, const std::string& run_id);

// Mark a run retracted (kept, but excluded from priors and the playbook);
// a second retract replaces the current reason, the history keeps both.
// Errors: not_found for an unknown run.
Result<void> retract_run(Database& db, const std::string& run_id, const std::string& reason,
                         const std::string& at_timestamp);
// Undo retract_run (recorded in the history). Errors: not_found for an
// unknown run, or when the run is not retracted.
Result<void> restore_run(Database& db, const std::string& run_id, const std::string& at_timestamp);

} // namespace rfdb::store
