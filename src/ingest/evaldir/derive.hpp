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
// - Attempts follow the attempt model (docs/attempt-model.md): one per
//   measured candidate; references attach by kernel and agreeing numbers,
//   never to an attempt they contradict.
// - Each attempt's prediction is the verdict that chose it: a measured
//   baseline roofline for the kernel if one exists, else the analytic verdict
//   of the attempt's stated round (latest round at or before it) or, when the
//   attempt states no round, of the earliest round that has a verdict for
//   the kernel (the decision-time verdict, before the kernel was changed).
#pragma once

#include "domain/prediction.hpp"
#include "domain/vocab.hpp"
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/evaldir/stack.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// One stored file version of a run, as read back from `sources`.
struct StoredSource {
  std::int64_t source_id = 0;
  std::string rel_path;
  ArtifactKind kind;
  std::string raw;
  bool superseded = false;
  bool text_elided = false; // raw not loaded: a ParsedFiles entry with this source_id has the parse
};

// One artifact parsed and run through its kind's parser: what derive_run
// takes from a file. Which members are set depends on the kind.
struct ParsedArtifact {
  std::optional<EnvReport> env;
  std::optional<RunOutcome> outcome;
  std::optional<BenchSummary> bench;
  std::optional<TopN> topn;
  std::optional<RooflineDoc> doc;
  std::vector<AttemptRecord> attempts;
  std::optional<EnvReport> identity; // workflow_return.json: model, backend, workload
  bool outcome_is_director = false;
  std::optional<DirectorFinal> director_final; // director_e2e_validation.json: what the validation ran
  std::vector<DuplicateKey> duplicates;        // keys the file repeats (none with differing measured values)
  StackClues stack; // env_info.txt, a roofline-v1 doc's tool, the install record (stack.hpp)
  // bench_runs.jsonl: its timed rounds (the samples of the summary beside it that lists none).
  std::optional<std::vector<BenchRound>> bench_rounds;
  // A patch or tuned_table file: its bytes, signed with the candidate that names it
  // (signature.hpp).
  std::optional<std::string> implementation_text;
};

// A file parsed during validation, kept for derive_run (which uses it only
// when a stored source has the same rel_path and identical text, or, once
// the file is stored, the same source_id).
struct ParsedFile {
  std::string_view text; // the file's content, owned by the caller
  std::optional<ParsedArtifact> parsed;
  std::int64_t source_id = 0; // the stored version with this text; 0 = not known
};
using ParsedFiles = std::map<std::string, ParsedFile, std::less<>>; // by rel_path

using store::Citation;
using store::RunRow;
using store::VerdictRef;
using DerivedDoc = store::DocRecord;

// One attempt = one physically measured candidate (docs/attempt-model.md):
// an overlay candidate, a config trial, or a bake-off winner no candidate
// deployed; or an unmeasured ledger row (flagged / dead end) that matched
// nothing. References (ledger rows, accepted/pending/flagged lists) attach
// to the attempt whose kernel and measured numbers agree.
struct DerivedAttempt {
  AttemptRecord record;                         // the measured candidate, with what references added
  domain::Prediction prediction;                // joined at ingest (units as in Verdict)
  std::optional<VerdictRef> prediction_verdict; // the verdict it was taken from
  std::optional<double> post_efficiency;        // fraction: roofline-v1 post efficiency / 100
  std::vector<Citation> sources;
  std::string key; // unique within the run: cand:<dir> | config:<id> | …
  domain::AttemptKind kind = domain::AttemptKind::kernel;
  std::optional<std::string> candidate_short_name; // the candidate's own short_name when it differs
  std::optional<std::string> task;                 // kernels/<task> the candidate was extracted to
  bool measured = false;                           // an isolated speedup or an e2e delta was measured
  bool deployed = false;                           // the final overlay or the Director's final env carries it
  bool post_measured = false;                      // a post roofline measured this attempt
  bool profiler_hbm_undercount = false;            // its prediction or post efficiency: a flagged verdict
  int ledger_order = -1;                           // index of its first ledger row (-1: none)
  bool in_accepted_list = false;                   // an accepted_heads / accepted_kernels row cites it
  domain::ValidationClass validation_class =
      domain::ValidationClass::unknown;     // the run's Director validation
  std::optional<double> validation_speedup; // × its throughput_speedup
  // The variant its candidate or a ledger row names ("split-K", "stream-K",
  // "decode-tile", "whole-file", "split-KV"), written into an authored
  // kernel's or code patch's `lever` so a variant is a lever of its own.
  std::optional<std::string> variant;
};

struct DerivedRun {
  RunRow run;
  std::vector<std::pair<std::int64_t, BenchSummary>> bench; // (source_id, row)
  std::vector<std::pair<std::int64_t, TopN>> rounds;
  std::vector<DerivedDoc> docs;
  std::vector<DerivedAttempt> attempts;
  std::vector<store::StackRow> stack; // by package (assemble_stack)
  std::vector<Warning>
      warnings; // the run's own: references that match no or two attempts, identity fallbacks
};

// Derive every row of run `run_id` from its stored files. `dir_basename`
// (the eval dir's name) supplies the run date when run_id does not. A source
// whose rel_path and text match an entry of `parsed` is not parsed again: the
// entry's ParsedArtifact is moved out and used.
// Errors: the first file that fails to parse or validate, with the file as
// context (invalid_input).
Result<DerivedRun> derive_run(const std::string& run_id, const std::string& dir_basename,
                              const std::vector<StoredSource>& sources, ParsedFiles* parsed = nullptr);

// Parse one artifact's text (parse_json_document) and run its kind's parser;
// the kind's warnings go to `warnings`, repeated keys to the result's
// `duplicates`. Errors name the file and JSON pointer (invalid_input).
Result<ParsedArtifact> parse_artifact(const ArtifactKind& kind, const std::string& rel_path,
                                      std::string_view text, std::vector<Warning>& warnings);

// Parse one artifact's text and run its kind's parser, for validation before
// anything is written. Errors name the file and JSON pointer.
Result<void> validate_artifact(const ArtifactKind& kind, const std::string& rel_path, const std::string& text,
                               std::vector<Warning>& warnings);

// The version of the derivation rules (runs.derived_by): bump it when a rule
// changes what derive_run makes of the same files, and every stored run is
// re-derived on its next ingest. 1 = the attempt model (docs/attempt-model.md);
// 2 = issue 27 (a Top-N short_name from the demangled function name, an
// authored variant in the lever, deployment by the Director's environment,
// a post roofline of a stack credited to none); 3 = issue 28 (a measured
// verdict's guidance and disputed flag, a multi-case roofline's case mix,
// its Amdahl attainable and the mix's regime); 4 = issue 30 (the run's stack
// in run_stack, from env_info.txt, the roofline tool and install record,
// which are now stored as sources); 5 = issue 30 (a bench
// summary's per-repetition throughputs in bench_samples and the env report's
// limitations in run_limitations, migration 0015); 6 = issue 30 (a measured
// verdict's profiler version and profiler_hbm_undercount flag, carried to
// the attempts and observations that rest on it, migration 0016); 7 = issue
// 31 (a candidate's GEAK csha:/asha: content signature, migration 0018, and
// the diff and tuning-table files it came from, now stored and cited); 8 =
// issue 30 (a bench summary's spread decided from its samples,
// ingest::decide_spread, and the samples of a summary that lists none read
// from the bench_runs.jsonl beside it, now stored as a source; a measured
// verdict without a tool version flagged by the run's profiler); 9 = the
// run's tp taken from workflow_return.json or director_e2e_validation.json's
// serving_config when env_report.json states none.
inline constexpr std::int64_t k_derivation_version = 9;

// The attempt records (candidates and references) one stored file holds, as
// derive_run reads them: for re-checking stored attempts against their
// sources. Errors: the file does not parse or validate.
Result<std::vector<AttemptRecord>> attempt_records(const ArtifactKind& kind, const std::string& rel_path,
                                                   const std::string& text);

} // namespace rfdb::ingest
