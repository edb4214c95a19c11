// Writing a derived run into the store, with statements prepared once per
// ingest and reused across rows (DESIGN.md §7: ingest is bounded by parsing,
// not by the store).
#pragma once

#include "ingest/evaldir/derive.hpp"
#include "store/database.hpp"

#include <memory>

namespace rfdb::ingest {

// Row counts written for one run.
struct WriteCounts {
  int kernels = 0;
  int verdicts = 0;
  int verdicts_superseded = 0;
  int attempts = 0;
  int bench = 0;
};

class RunWriter {
public:
  // Prepare every statement. Errors: db.
  static Result<RunWriter> create(store::Database& db);
  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) noexcept;
  ~RunWriter();

  // Insert or refresh the run's identity row (timestamps: ISO-8601 UTC).
  Result<void> upsert_run(const RunRow& run, const std::string& eval_dir, const std::string& now);
  // Delete every derived row of the run (its sources stay).
  Result<void> clear_derived(const std::string& run_id);
  // Insert every derived row of the run. Call inside the run's transaction.
  Result<WriteCounts> write_derived(const DerivedRun& run);

private:
  struct Statements;
  explicit RunWriter(store::Database& db, std::unique_ptr<Statements> s);
  store::Database* m_db;
  std::unique_ptr<Statements> m_s;
};

} // namespace rfdb::ingest
