// Store-to-store transfer behind `rfdb copy`: a whole store from one database into an empty one (SQLite or
// PostgreSQL, either way).
//
// The tables come from the schema, not from a list kept here: the source's
// catalog (sqlite_master + pragma_foreign_key_list on SQLite, pg_class +
// pg_constraint on PostgreSQL) names every base table, its columns with
// their declared types and its foreign keys; views and the store's own
// bookkeeping tables (sqlite_*, rfdb_*) are not copied. Tables are copied
// parents first (a topological order of the foreign keys, creation order
// among equals), every column by name, primary keys as stored, in one
// transaction on the destination. A column that references its own table
// (sources.superseded_by) is inserted NULL and set once every row of the
// table is in, so no row points at one not yet copied.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// Rows of one table in the source and the destination.
struct TableCount {
  std::string table;
  std::int64_t source_rows = 0;
  std::int64_t dest_rows = 0;
};

// What copy_store did: every copied table, in copy order.
struct CopyReport {
  std::vector<TableCount> tables;
  // True when every table has as many rows in the destination as in the source.
  [[nodiscard]] bool counts_match() const;
};

// True when `db` is a PostgreSQL store (its path is a postgresql:// or
// postgres:// URL). MERGE: use the backend's own accessor once it has one.
bool is_postgres(const Database& db);

// The tables copy_store copies, parents before children (see the top of
// this file). Errors: db; internal when the foreign keys form a cycle
// between distinct tables.
Result<std::vector<std::string>> copy_order(Database& db);

// The rows of every table copy_store copies, in copy order, as
// {table, rows, 0}. Errors: db.
Result<std::vector<TableCount>> table_counts(Database& db);

// Copy every table of `src` into `dst` in one transaction on `dst`, then
// after_bulk_copy(dst), then count the rows of both. `dst` must be open for
// writing, at the same schema version as `src`, and hold no row in any
// table copied (checked inside the transaction). Errors: invalid_input when
// `dst` is not empty (the message names the tables that hold rows; nothing
// is written), invalid_input when the schema versions differ or `dst` lacks
// a table or column of `src`, db.
//
// The copy's verification state is recorded in the destination's rfdb_meta
// (key copy_state, created on a SQLite destination when missing; rfdb_*
// tables are never copied): k_copy_unverified in the copy's transaction,
// so a copy killed before its verification is known for one on a re-run.
Result<CopyReport> copy_store(Database& src, Database& dst);

// The states copy_store and `rfdb copy` record in a destination.
inline constexpr std::string_view k_copy_unverified = "copied, unverified";
inline constexpr std::string_view k_copy_verified = "verified";
inline constexpr std::string_view k_copy_failed = "verification failed";

// A destination's recorded copy state and the source it was copied from (as
// shown, password masked); empty strings when no copy was recorded there.
struct CopyState {
  std::string state;
  std::string from;
};

// The copy state recorded in `db` (see copy_store). Errors: db.
Result<CopyState> read_copy_state(Database& db);

// Record `state` (one of the k_copy_* states) and the source `from` in
// `db`'s rfdb_meta, creating the table on SQLite when missing. Errors: db.
Result<void> write_copy_state(Database& db, std::string_view state, const std::string& from);

// The rows of every copied table in `src` and `dst`, in copy order (the
// report of a copy already committed). Errors: db.
Result<CopyReport> compare_counts(Database& src, Database& dst);

// Test hook: called by `rfdb copy` once the copy committed, before its
// verification; an error returned stops the command there (a copy killed
// between its commit and its verification). Empty: no hook.
void set_copy_committed_hook(std::function<Result<void>()> hook);
Result<void> run_copy_committed_hook();

// After rows were inserted with their primary keys given: bring every
// identity/serial sequence past the largest key, so the next ingest's
// generated ids do not collide. PostgreSQL: setval per identity column.
// SQLite: nothing to do (INTEGER PRIMARY KEY takes max(rowid) + 1).
// Errors: db.
Result<void> after_bulk_copy(Database& db);

} // namespace rfdb::store
