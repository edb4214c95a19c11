// `rfdb check`'s checks in one call (see ingest/database_check.hpp).
#include "ingest/database_check.hpp"

namespace rfdb::ingest {

Result<DatabaseCheck> check_database(store::Database& db,
                                     const std::function<void(std::int64_t, std::int64_t)>& progress)
{
  DatabaseCheck out;
  RFDB_TRY_ASSIGN(out.store, store::check(db));
  out.needs_migrate = out.store.schema_version < out.store.newest_schema_version;
  if (out.needs_migrate) {
    return out;
  }
  RFDB_TRY_ASSIGN(out.stored, store::check_stored_files(db, progress));
  RFDB_TRY_ASSIGN(out.evidence, check_evidence(db, out.stored.damaged));
  return out;
}

} // namespace rfdb::ingest
