// Shifts: steps in a key's achieved efficiency over its runs in date order
// (docs/estimator.md, "Shifts", issue 30).
//
// A run is one point: its value is the weighted median of its observations'
// e (split weights), its weight their total. Over the series in (date, run)
// order, binary segmentation looks for the split that maximizes the
// standardized Mann–Whitney rank-sum statistic |z_t| over the splits that
// leave ≥ min_runs runs on each side (Pettitt 1979's max-type statistic,
// standardized per split), and judges it by a permutation test of that
// maximum (as E-divisive does, Matteson & James 2014, and Otava/Hunter after
// it). A split is a shift when its p-value is ≤ alpha AND the after window's
// weighted median lies outside the before window's 90 % bootstrap interval
// over runs, and the before median outside the after window's. Each side of a
// shift is then searched again.
//
// Pure: no I/O, no clock; deterministic for a given seed.
#pragma once

#include "calibrate/stats.hpp"
#include "domain/roofline.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::calibrate {

// One run of a key's series.
struct RunPoint {
  std::string run_id;
  std::string run_date; // YYYY-MM-DD
  double value = 0.0;   // the run's achieved efficiency (fraction)
  double weight = 1.0;  // > 0: the run's total observation weight
};

struct ShiftParams {
  int min_runs = domain::k_shift_min_runs;         // runs in each window, ≥ 1
  double alpha = domain::k_shift_alpha;            // permutation p-value threshold, in (0, 1)
  int permutations = domain::k_shift_permutations; // ≥ 1
  int bootstrap_resamples = 1000;                  // of each window's median, ≥ 1
  double interval = 0.90;                          // central bootstrap interval, in (0, 1)
  std::uint64_t seed = 0x7266'6462'7368'6966ULL;   // "rfdbshif"
};

// A step found in a series: the runs [begin, split) before it and
// [split, end) after it (indices into the series searched).
struct Step {
  std::size_t begin = 0;
  std::size_t split = 0; // first run after the step
  std::size_t end = 0;
  double statistic = 0.0; // max |z| of the standardized Mann–Whitney rank sum
  double p_value = 1.0;   // permutation p-value of that maximum, (1 + #≥) / (permutations + 1)
  double before_median = 0.0;
  double after_median = 0.0;
  Interval before_interval;
  Interval after_interval;
};

// The standardized Mann–Whitney statistic of every split t of `values`
// (t runs before, m − t after; midranks for ties): z_t = (R_t − t(m+1)/2) /
// sqrt(t(m−t)(m+1)/12), R_t the rank sum of the first t values. Element t
// (1 ≤ t < m) holds z_t; element 0 is 0. Empty for fewer than 2 values.
std::vector<double> mann_whitney_z(std::span<const double> values);

// The steps of `series` (in date order), by binary segmentation, ordered by
// split. `label` seeds the permutation and bootstrap streams (e.g. the key,
// "gemm:gfx950"), so a key's result depends only on its own series.
// A series shorter than 2·min_runs has none.
std::vector<Step> find_steps(std::span<const RunPoint> series, const ShiftParams& params,
                             std::string_view label);

// The serving stack of a run, as the shift attribution reads it: for now the
// runs table's backend and backend_version (the full stack table extends it).
struct RunStack {
  std::string backend;         // vllm | sglang | … ("" unknown)
  std::string backend_version; // raw version string ("" unknown)
};

// What changed in the stack between the last run before a shift and the first
// after it: "vllm 0.24.1 → 0.26.0" (version change), "vllm 0.26.0 → sglang
// 0.5.1" (backend change); nullopt when nothing known changed (equal stacks,
// or a side unknown).
std::optional<std::string> stack_change(const RunStack& before, const RunStack& after);

// What a shift is a step in.
enum class ShiftMeasure {
  efficiency,   // the achieved efficiency e of a class (or class × gfx): the priors' weights respect it
  e2e_transfer, // the e2e transfer ratio x of a class × regime (e2e_transfer.hpp): reported only
};

// "e" | "e2e_transfer" (the JSON spelling).
std::string_view to_string(ShiftMeasure measure);

// A shift of one key (class, or class × gfx, for e; class × regime for the
// e2e transfer ratio), as priors and the playbook use it.
struct Shift {
  ShiftMeasure measure = ShiftMeasure::efficiency;
  std::string op_class;
  std::optional<std::string> gfx;    // none: the class over all GPUs
  std::optional<std::string> regime; // the e2e transfer's regime (decode | prefill | …); none for e
  std::string before_run;            // last run before the step
  std::string before_date;
  std::string after_run; // first run after it
  std::string after_date;
  int before_runs = 0; // runs in the window before (since the previous shift)
  int after_runs = 0;  // runs in the window after (up to the next shift)
  double before_median = 0.0;
  double after_median = 0.0;
  Interval before_interval;
  Interval after_interval;
  double p_value = 1.0;
  // The stack change between before_run and after_run, "vllm 0.24.1 →
  // 0.26.0" (stack_change), once the caller knows the runs' stacks; "" when it
  // does not or nothing changed.
  std::string attribution;
};

// "gemm" or "gemm:gfx950" (e); "gemm:decode" (the e2e transfer ratio).
std::string shift_key(const Shift& shift);
// The step, after_median − before_median (a fraction of roofline for e, × of
// the Amdahl ceiling for the e2e transfer ratio).
double shift_step(const Shift& shift);

// Whether a run (date, id) lies before the shift (the series order: date, then
// run id).
bool before_shift(const Shift& shift, std::string_view run_date, std::string_view run_id);

// The one-line description of a shift: "gemm:gfx950 e 0.2600 → 0.3400 (+0.0800)
// …", or "gemm:decode e2e transfer 0.4000 → 0.8000 (+0.4000) …"
// between run A (2026-05-01) and run B (2026-06-01): vllm 0.24.1 → 0.26.0" (the
// attribution after a colon, when there is one).
std::string describe_shift(const Shift& shift);

} // namespace rfdb::calibrate
