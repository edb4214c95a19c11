// The measured phases of rfdb_bench: the parse baseline (what ingest cannot
// avoid), a breakdown of ingest's own stages, ingest itself, and `priors` /
// `report` on the resulting database.
//
// Every duration is a Span: wall seconds from std::chrono::steady_clock and
// the process's CPU seconds (user + system) over the same interval. Wall
// time is the figure users feel; CPU time is the steadier one on a shared
// machine, where other jobs steal the cores (see README.md). Sizes are
// bytes; RSS is KiB (the Linux ru_maxrss unit).
#pragma once

#include "util/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rfdb::bench {

// A duration measured two ways (seconds).
struct Span {
  double wall = 0.0;
  double cpu = 0.0;
  Span& operator+=(const Span& other);
  friend Span operator+(Span a, const Span& b) { return a += b; }
  friend Span operator-(Span a, const Span& b) { return {a.wall - b.wall, a.cpu - b.cpu}; }
};

// Starts on construction; elapsed() reads both clocks.
class Stopwatch {
public:
  Stopwatch();
  [[nodiscard]] Span elapsed() const;

private:
  std::chrono::steady_clock::time_point m_wall;
  double m_cpu;
};

// Peak resident set size of this process so far (getrusage ru_maxrss), KiB.
std::int64_t peak_rss_kib();
// Current resident set size (/proc/self/statm), KiB; 0 when unavailable.
std::int64_t current_rss_kib();

// Read + parse of every artifact ingest would read, without the store.
struct ParseStats {
  std::int64_t files = 0;
  std::int64_t bytes = 0;    // artifact bytes (what ingest reads)
  Span list_read;            // directory walk, classify_artifact, file reads
  Span parse;                // parse_json_text alone
  Span validate;             // validate_artifact (its own parse + the kind's parser)
  std::int64_t warnings = 0; // from validate_artifact
};

// Ingest's stages re-enacted with its public pieces on the same files (no
// database); what the real ingest spends beyond their sum is the store.
struct BreakdownStats {
  Span read_hash; // read_eval_dir: walk + read + sha256
  Span validate;  // validate_artifact of every file (ingest's prevalidate)
  Span derive;    // derive_run over the same texts (ingest parses them again)
};

// Ingest of every run into a fresh database, one ingest() call per run.
struct IngestStats {
  std::int64_t runs = 0;
  Span open;                   // Database::open + migrations of the empty file
  Span first;                  // the first `first_runs` runs
  std::int64_t first_runs = 0; // N/10 (at least 1)
  Span total;                  // all runs
  std::int64_t peak_rss_first_kib = 0, rss_first_kib = 0;
  std::int64_t peak_rss_total_kib = 0, rss_total_kib = 0;
  std::int64_t db_bytes = 0; // database file after close
};

struct CorpusStats {
  ParseStats parse;
  BreakdownStats breakdown;
  IngestStats ingest;
};

// For each run of `dirs` in turn: walk + read + parse + validate its
// artifacts, re-enact ingest's stages, then ingest it into `db_path` (a new
// file). Interleaving per run makes the baseline and ingest share the same
// machine load, so their ratio holds on a busy machine. Progress goes to
// stderr every 10 %. Errors: open failure, an artifact that fails to
// validate (the corpus must be valid), or a run whose ingest failed or did
// not add the run.
Result<CorpusStats> measure_corpus(const std::vector<std::filesystem::path>& dirs,
                                   const std::filesystem::path& db_path);

// Median wall times (seconds) over the repeats of `rfdb priors` and
// `rfdb report`, each stage as the commands run it.
struct QueryStats {
  int repeats = 0;
  double open_s = 0.0;          // Database::open of the filled file
  double load_evidence_s = 0.0; // store::load_evidence (no filter)
  double priors_class_s = 0.0;  // observations_from + compute_priors, --by class
  double priors_regime_s = 0.0; // same, --by class,gfx,regime
  // `rfdb report`: report::generate, the function the command calls; on an
  // SQLite file the priors run on their own thread alongside the read.
  double report_priors_s = 0.0;  // its priors by class,gfx (load + compute)
  double report_read_s = 0.0;    // its read of the report's rows into the input
  double report_analyze_s = 0.0; // its analyze
  double report_replay_s = 0.0;  // its routing replay (calibrate::playbook_replay)
  double report_render_s = 0.0;  // its render_playbook
  std::int64_t attempts = 0, verdicts = 0, evidence_runs = 0, observations = 0;
  std::int64_t playbook_bytes = 0;
  // Whole commands: priors, the median of open + load + compute; report, the
  // median of the read-only open + report::generate.
  double priors_cmd_class_s = 0.0, priors_cmd_regime_s = 0.0, report_cmd_s = 0.0;
};

// Run priors and report `repeats` times on `db_path`. Errors: db, or a
// compute_priors error.
Result<QueryStats> query_pass(const std::filesystem::path& db_path, int repeats);

} // namespace rfdb::bench
