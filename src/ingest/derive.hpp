// Re-derivation of a run's rows from its stored files.
//
// Ingest stores every file version in `sources`; the rows of runs,
// bench_summaries, profile_rounds/kernel_samples, roofline_docs/verdicts and
// attempts are a pure function of those files (derive_run). Re-ingesting after
// the next milestone therefore only adds files and re-derives, and the result
// does not depend on the order files arrived in.
//
// Rules decided here (README "How ingest reads a run"):
// - A file rewritten in place (same rel_path, new content) supersedes its
//   older version; for profile_roofline.json the older verdicts stay stored
//   with superseded = 1, other kinds keep only the raw older file.
// - Attempt records from different files with the same attempt_key merge
//   into one attempt citing every file (a record without a backend joins the
//   kernel's single record that has one). Field precedence:
//   integrate_result > opbench_result > workflow_return > sweep_results.
// - Each attempt's prediction is the verdict that chose it: a measured
//   baseline roofline for the kernel if one exists, else the analytic verdict
//   of the attempt's stated round (latest round at or before it) or, when the
//   attempt states no round, of the earliest round that has a verdict for
//   the kernel (the decision-time verdict, before the kernel was changed).
#pragma once

#include "ingest/artifacts.hpp"
#include "ingest/files.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::ingest {

// One stored file version of a run, as read back from `sources`.
struct StoredSource {
  std::int64_t source_id = 0;
  std::string rel_path;
  ArtifactKind kind;
  std::string raw;
  bool superseded = false;
};

// Identity + outcome columns of `runs`.
struct RunRow {
  std::string run_id;
  std::optional<std::string> run_date;
  EnvReport env;
  RunOutcome outcome;
};

// Where an attempt's prediction came from: index into DerivedRun::docs and
// that doc's verdicts (the writer turns it into pred_verdict_id).
struct VerdictRef {
  std::size_t doc = 0;
  std::size_t verdict = 0;
};

// The prediction snapshot joined at ingest (units as in Verdict).
struct Snapshot {
  std::optional<VerdictRef> verdict;
  std::optional<std::string> source_kind, stage, headroom_class, bound_type, confidence;
  std::optional<double> roofline_pct, target_eff, attainable_speedup, expected_e2e_gain_pct;
  std::optional<double> pct_gpu_time; // percent 0–100
  std::optional<bool> suspect;
  std::optional<double> post_efficiency; // fraction: roofline-v1 post efficiency / 100
  std::optional<std::string> round;
};

struct Citation {
  std::int64_t source_id = 0;
  std::string json_pointer;
};

struct DerivedAttempt {
  AttemptRecord record; // merged across files
  Snapshot prediction;
  std::vector<Citation> sources;
};

struct DerivedDoc {
  std::int64_t source_id = 0;
  RooflineDoc doc;
  bool superseded = false;
};

struct DerivedRun {
  RunRow run;
  std::vector<std::pair<std::int64_t, BenchSummary>> bench; // (source_id, row)
  std::vector<std::pair<std::int64_t, TopN>> rounds;
  std::vector<DerivedDoc> docs;
  std::vector<DerivedAttempt> attempts;
  std::vector<Warning> warnings; // from every file, in rel_path order
};

// Derive every row of run `run_id` from its stored files. `dir_basename`
// (the eval dir's name) supplies the run date when run_id does not.
// Errors: the first file that fails to parse or validate, with the file as
// context (invalid_input).
Result<DerivedRun> derive_run(const std::string& run_id, const std::string& dir_basename,
                              const std::vector<StoredSource>& sources);

// Parse one artifact's text and run its kind's parser, for validation before
// anything is written. Errors name the file and JSON pointer.
Result<void> validate_artifact(const ArtifactKind& kind, const std::string& rel_path, const std::string& text,
                               std::vector<Warning>& warnings);

} // namespace rfdb::ingest
