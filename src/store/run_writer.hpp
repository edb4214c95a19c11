// Writing a derived run into the store, with statements prepared once per
// ingest and reused across rows and runs (tools/bench/README.md: ingest is bounded by
// parsing, not by the store), plus the reads ingest makes inside a run's
// write transaction: the derivation version and the copy check's candidates (the
// run-copy rule: ingest/run_copy.hpp).
#pragma once

#include "store/database.hpp"
#include "store/run_records.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rfdb::store {

// Row counts written for one run.
struct WriteCounts {
  int kernels = 0;
  int verdicts = 0;
  int verdicts_superseded = 0;
  int attempts = 0;
  int bench = 0;
};

// One measured attempt of a stored run, as the copy check compares it.
struct MeasuredAttemptRow {
  std::string short_name;
  std::optional<double> isolated_speedup; // ×
  std::optional<double> e2e_delta_pct;    // percent
  std::string kind;                       // kernel | config
  std::string attempt_key;                // cand:<dir> | config:<id> | …
  std::optional<std::string> candidate;   // candidate dir (or ledger direction)
  std::string lever;
};

class RunWriter {
public:
  // Prepare every statement. Errors: db.
  static Result<RunWriter> create(Database& db);
  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) noexcept;
  ~RunWriter();

  // Insert or refresh the run's identity row (timestamps: ISO-8601 UTC) and
  // replace its stated limitations (run_limitations, migration 0015).
  Result<void> upsert_run(const RunRow& run, const std::string& eval_dir, const std::string& now);
  // Delete every derived row of the run (its sources stay; bench_samples
  // too); its observation
  // rows go with its attempts (ON DELETE CASCADE).
  Result<void> clear_derived(const std::string& run_id);
  // Insert every derived row of run `run_id`: bench and rounds are
  // (source_id, row) pairs; an attempt's pred_verdict indexes `docs`; last,
  // the run's observation rows (migration 0009) from what was just written,
  // so call it after upsert_run and clear_derived. Call inside the run's
  // transaction. Errors: db.
  Result<WriteCounts> write_rows(const std::string& run_id,
                                 std::span<const std::pair<std::int64_t, BenchSummary>> bench,
                                 std::span<const std::pair<std::int64_t, TopN>> rounds,
                                 std::span<const DocRecord> docs, std::span<const Attempt> attempts);

  // Insert the run's stack rows (run_stack, migration 0014); call after
  // clear_derived, inside the run's transaction. Errors: db.
  Result<void> write_stack(const std::string& run_id, std::span<const StackRow> stack);

  // runs.derived_by of a stored run: nullopt when the run is not stored.
  // Errors: db.
  Result<std::optional<std::int64_t>> derived_by(const std::string& run_id);
  // Record the derivation version that wrote the run's rows. Errors: db.
  Result<void> set_derived_by(const std::string& run_id, std::int64_t version);

  // Copy check (queries/run_copy_candidates.sql): other stored runs with
  // `run`'s identity and a measured attempt of `short_name` whose numbers
  // are within twice the comparison steps of these. Errors: db.
  Result<std::vector<std::string>> copy_candidates(const RunRow& run, const std::string& short_name,
                                                   std::optional<double> isolated_speedup,
                                                   std::optional<double> e2e_delta_pct);
  // A stored run's measured attempts (an isolated speedup or an e2e delta).
  Result<std::vector<MeasuredAttemptRow>> measured_attempts(const std::string& run_id);
  // True when some current file of the run is stored under no other run.
  Result<bool> has_unshared_file(const std::string& run_id);
  // The first other run with `run`'s identity that stores every current
  // file of it with the same path and content, if any.
  Result<std::optional<std::string>> file_copy(const RunRow& run);

private:
  struct Statements;
  explicit RunWriter(Database& db, std::unique_ptr<Statements> s);
  Database* m_db;
  std::unique_ptr<Statements> m_s;
};

} // namespace rfdb::store
