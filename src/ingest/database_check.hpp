// `rfdb check`: every check of a database in one call: the store's own
// (integrity, foreign keys, schema version, orphan rows), every stored file
// against its recorded size and sha256, and every attempt against the files
// it cites (ingest/check_evidence.hpp).
#pragma once

#include "ingest/check_evidence.hpp"
#include "store/admin.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace rfdb::ingest {

struct DatabaseCheck {
  store::CheckReport store;
  // The schema is older than this rfdb's: the stored files and the evidence
  // are read in the newest layout (compressed since migration 0008), so they
  // are not checked (stored and evidence stay empty) until `rfdb migrate`.
  bool needs_migrate = false;
  store::StoredCheck stored;
  std::vector<Disagreement> evidence; // attempts that disagree with a cited source
  [[nodiscard]] bool ok() const { return store.ok() && stored.ok() && evidence.empty(); }
};

// Check `db` (opened read-only, an older schema accepted). Citations of a
// stored file that fails verification are not re-read. `progress` (may be
// empty) is called now and then with the stored file versions verified and
// their total. Errors: db; a stored source that no longer parses.
Result<DatabaseCheck> check_database(store::Database& db,
                                     const std::function<void(std::int64_t, std::int64_t)>& progress = {});

} // namespace rfdb::ingest
