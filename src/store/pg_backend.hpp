// Internal to store/: the PostgreSQL backend (libpq, loaded on the first
// connection: pg_libpq.hpp) behind store::Database, and the identity checks
// both backends' open functions share.
//
// A `postgresql://` (or `postgres://`) --db value is a libpq connection URI;
// what it leaves out comes from the PG* environment variables and
// ~/.pgpass, as for psql. Every connection sets client_encoding UTF8,
// extra_float_digits 1 (float8 text is the shortest that reads back to the
// same double) and bytea_output hex, and drops the server's notices.
//
// Schema: migrations/postgresql/NNNN_*.sql, one per SQLite migration, with
// TEXT COLLATE "C" columns so comparisons and ORDER BY follow bytes as
// SQLite's BINARY collation does. rfdb_meta(key, value) holds
// 'application_id' (k_application_id, decimal) and 'schema_version'.
// Migrations run in one READ COMMITTED transaction that first takes
// pg_advisory_xact_lock(k_migration_lock) and then re-reads rfdb_meta, so
// concurrent first opens create the schema once.
//
// Statements: `:name` parameters become `$n` (the same name, the same n)
// and are prepared once per connection (PQprepare, cached by text); every
// value is sent as a parameter in text form, typed by the server from its
// use (a double as its shortest round-trip text, a blob as `\x` hex).
// Columns read back as SQLite would give them: booleans as 1/0, reals as
// text in SQLite's "%!.15g" form (sqlite_real_text).
//
// Transactions: begin_immediate is BEGIN ISOLATION LEVEL SERIALIZABLE, then
// LOCK TABLE rfdb_meta IN SHARE ROW EXCLUSIVE MODE: writers queue one at a
// time as with SQLite's BEGIN IMMEDIATE (readers never wait), and since the
// lock comes before the first query, each writer's snapshot includes the
// previous writer's rows. SERIALIZABLE stays as the guard for any writer
// that does not take the lock.
// REPEATABLE READ (snapshot isolation) would let two hosts ingest copies
// of one run at once, each checking "is this content stored under another
// run id?" (run_file_copies, run_copy_candidates) against a snapshot
// without the other's rows, and both land as originals (write skew).
// SERIALIZABLE detects that read/write dependency and fails one of them
// with SQLSTATE 40001 (or 40P01 on a deadlock), which the store returns as
// ErrorCode::retry; store::with_retry runs the unit again, and the second
// run then sees the first's rows and records a copy (or "unchanged").
#pragma once

#include "store/backend.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store::detail {

// Identity of an open database, read from one snapshot.
struct Identity {
  int application_id = 0;
  int version = 0;
  int objects = 0;
  [[nodiscard]] bool fresh() const { return application_id == 0 && version == 0 && objects == 0; }
};

// Refuse what this rfdb must not touch: a foreign database or a newer
// schema; and, unless `older` is accept, an older one (which `rfdb migrate`
// upgrades). Errors: not_rfdb_db, schema_too_new, needs_migration.
Result<void> check_identity(const Identity& id, OlderSchema older);

// The key of the advisory lock migrations hold ("RFDB" twice).
inline constexpr long long k_migration_lock = 0x5246444252464442LL;

// Database::open, Database::open_read_only and migrate_database for a
// PostgreSQL URI (see database.hpp).
Result<Database> pg_open(const std::string& url);
Result<Database> pg_open_read_only(const std::string& url, OlderSchema older);
Result<MigrateReport> pg_migrate_database(const std::string& url);

// `sql` with its `:name` parameters numbered `$1`, `$2`, … in order of first
// appearance (a repeated name keeps its number); quoted strings and
// identifiers, comments and `::` casts are left alone.
struct NumberedSql {
  std::string sql;
  std::vector<std::string> names; // names[n - 1] is $n, without the ':'
};
NumberedSql number_parameters(std::string_view sql);

// A double as SQLite's CAST(x AS TEXT) writes it ("%!.15g": 15 significant
// digits, always a decimal point: 1.0, 0.3, 1.0e+20).
std::string sqlite_real_text(double value);

} // namespace rfdb::store::detail
