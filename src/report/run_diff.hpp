// `rfdb diff RUN_A RUN_B` (docs/README.md, docs/json.md): what differs between two stored runs —
// identity, stack, workload, profile heads, attempts matched by lever key, throughput and
// validation — as one struct the CLI and a future HTML diff page render. Units as everywhere:
// pct_gpu_time and *_pct percent 0–100, roofline_pct and target_eff fractions 0–1, speedups ×
// over baseline, throughputs tok/s.
#pragma once

#include "store/database.hpp"
#include "store/runs.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rfdb::report {

// How one item (a field, a stack package, a head, an attempt) compares: the same on both runs,
// different, or present on one run only.
enum class DiffState { same, changed, only_a, only_b };
// "same", "changed", "only_a", "only_b" (the JSON spelling).
std::string_view to_string(DiffState state);

// The unit of a compared value, which fixes the precision it is compared and shown at: two
// numbers that print the same are the same (speedup 3 decimals, percent 2, fraction 4,
// throughput 1; counts and text exactly).
enum class DiffUnit { text, count, flag, speedup, percent, fraction, throughput };
// The decimals a number of `unit` is compared and shown with; -1 for the units that are not
// rounded (text, count, flag).
int diff_decimals(DiffUnit unit);

// A value as stored: absent, text, an integer, a number or a flag.
using DiffValue = std::variant<std::monostate, std::string, std::int64_t, double, bool>;

// One compared field: its name as docs/json.md spells it, the two values, and whether they
// differ (at the unit's precision).
struct FieldDiff {
  std::string field;
  DiffValue a, b;
  DiffUnit unit = DiffUnit::text;
  bool changed = false;
};

// One package of the two stacks (store::StackRow, the `run_stack` rows): compared on the
// version `rfdb runs --stack` compares (store::stack_version_text: rocm its release, others
// their raw string).
struct StackDiff {
  std::string package;
  std::optional<store::StackRow> a, b;
  DiffState state = DiffState::same;
};

// One profile head of a run as the diff reads it: a kernel with pct_gpu_time ≥
// domain::k_head_min_pct in the run's latest analytic round, its verdict taken from the
// kernel's usable measured baseline roofline when it has one (source "measured"; the expected
// gain then pct_gpu_time × (1 − 1/attainable), as the report reads it), else from the
// analytic verdict.
struct HeadSide {
  std::string round, short_name, op_class, source; // source: analytic | measured
  std::optional<double> pct_gpu_time, roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::string headroom_class, bound_type;
};

// A head matched across the runs by its kernel name folded (report::fold_kernel_name). A
// kernel that is a head on one run is looked up on the other in that run's latest round even
// below the head threshold, so a share that fell under 5 % shows as a change, not as "only".
// `fields` holds pct_gpu_time, source, roofline_pct, target_eff, attainable_speedup,
// expected_e2e_gain_pct, headroom_class, bound_type, op_class (changed set when both sides
// exist and differ).
struct HeadDiff {
  std::string kernel; // A's short_name, else B's
  std::optional<HeadSide> a, b;
  DiffState state = DiffState::same;
  std::vector<FieldDiff> fields;
};

// One attempt's outcome as the diff compares it (docs/attempt-model.md).
struct AttemptSide {
  std::string attempt, short_name, kind, lever, verdict; // attempt: its attempt_key
  std::optional<std::string> gate, output_parity, reject_reason;
  bool measured = false, deployed = false;
  std::optional<double> isolated_speedup, e2e_delta_pct;
};

// Attempts matched across the runs by (kernel folded, lever key: domain::lever_key(lever,
// op_class), the key the playbook merges on). Several attempts with one key on a run pair up
// first by equal attempt_key, then in stored order; the rest are only_a / only_b. `fields`
// holds gate, verdict, measured, deployed, isolated_speedup, e2e_delta_pct, output_parity,
// reject_reason.
struct AttemptDiff {
  std::string kernel, lever_key;
  std::optional<AttemptSide> a, b;
  DiffState state = DiffState::same;
  std::vector<FieldDiff> fields;
};

// The whole comparison. Every section lists every item (equal ones too); a renderer chooses
// what to show. Items in the order of run A, then those only on run B.
struct RunDiff {
  std::string run_a, run_b;
  std::optional<std::string> date_a, date_b;
  // run_id, run_date, model, model_arch_class, gfx, device_name, backend, backend_version, retracted
  std::vector<FieldDiff> identity;
  std::vector<StackDiff> stack; // by package
  // isl, osl, conc, tp, precision (the run's model_dtype)
  std::vector<FieldDiff> workload;
  std::vector<HeadDiff> heads;
  std::vector<AttemptDiff> attempts;
  // baseline_throughput_tok_s, final_throughput_tok_s, throughput_speedup,
  // measured_spread_pct (store::measured_spread_pct), e2e_band_pct, e2e_band_source
  std::vector<FieldDiff> throughput;
  // validation_class, validation_status, output_parity
  std::vector<FieldDiff> validation;
  // The runs' tags (store::RunDetail::tags): one field per key either run carries, in key
  // order; a run without the key has no value.
  std::vector<FieldDiff> tags;

  // The number of items that differ (fields changed, packages / heads / attempts not the same).
  [[nodiscard]] std::size_t differences() const;
};

// Compare two runs read by store::get_run.
RunDiff diff_runs(const store::RunDetail& a, const store::RunDetail& b);
// Read both runs (store::get_run: a fixed number of queries per run) and compare them.
// Errors: not_found for a run id no run has; db.
Result<RunDiff> diff_runs(store::Database& db, const std::string& run_a, const std::string& run_b);

} // namespace rfdb::report
