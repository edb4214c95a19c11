// The attempt model (docs/attempt-model.md): turn the attempt records that
// a run's files hold into one attempt per physically measured candidate.
//
// - Measured candidates: each overlay/cand_*/integrate_result.json, each
//   config/sweep_results.json trial, and each op bake-off winner
//   (opbench_result.json) that no overlay candidate deployed. A bake-off
//   winner whose kernel and isolated speedup agree with an overlay candidate
//   is that candidate's attempt.
// - References: ledger rows, accepted_heads / accepted_kernels,
//   pending_integrations and flagged_heads rows. Each attaches to the one
//   attempt on its kernel (direction / short_name, or the candidate's task
//   dir where names differ) whose measured numbers agree: isolated within
//   0.1 % relative and e2e within 0.01 percentage points, every number both
//   sides state. A reference that agrees with two attempts equally (its
//   backend does not tell them apart) is a warning and attaches to neither;
//   one whose numbers agree with no attempt becomes its own attempt citing
//   only itself, with a warning. An unmeasured reference (a 0 / 0 ledger row,
//   a flagged head) attaches to the kernel's unmeasured attempt, else is an
//   unmeasured attempt of its own — never evidence.
#pragma once

#include "ingest/evaldir/derive.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace rfdb::ingest {

// One attempt record as a file holds it.
struct RecordIn {
  AttemptRecord record;
  std::int64_t source_id = 0;
  std::string rel_path; // the file, for warnings
};

// Isolated speedups (×) agree within 0.1 % relative.
bool isolated_agrees(double a, double b);
// e2e deltas (percent) agree within 0.01 percentage points.
bool e2e_agrees(double a, double b);

// Build the run's attempts from every record of its files (any order; the
// result is ordered by the measured candidates' files, then references in
// ledger order). `known_kernels` are the Top-N and verdict short_names: a
// candidate whose short_name is not one of them is resolved through its
// task_dir. Warnings name the reference's file and JSON pointer.
std::vector<DerivedAttempt> build_attempts(std::vector<RecordIn> records,
                                           const std::set<std::string>& known_kernels,
                                           std::vector<Warning>& warnings);

} // namespace rfdb::ingest
