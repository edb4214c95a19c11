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

// Test hook: called by transfer_store once the copy committed, before its
// verification; an error returned stops it there (a copy killed between its
// commit and its verification). Empty: no hook.
void set_copy_committed_hook(std::function<Result<void>()> hook);

// The verification of a copy beyond its row counts: the parts that need the
// layers above the store (`rfdb check` is ingest's, the priors calibrate's),
// given by the caller. Each opens the database its argument names (a path or
// a URL, as given to transfer_store) read-only itself.
struct CopyVerifier {
  // True when `rfdb check` finds no problem in the database. Errors: the
  // check's own (transfer_store stops, the copy stays unverified).
  std::function<Result<bool>(const std::string& db)> check;
  // `rfdb priors --format json` of the database: the source's and the
  // copy's are compared byte for byte. Errors: the priors' own (as check).
  std::function<Result<std::string>(const std::string& db)> priors_json;
};

// What transfer_store did (`rfdb copy`'s summary).
struct TransferOutcome {
  std::string from;        // the source as given, a URL's password masked
  std::string to;          // the destination, likewise
  std::string source_name; // the source as the destination records it (display_name of its path)
  bool resumed = false;    // a copy committed earlier but not verified was verified (nothing copied)
  CopyReport report;       // the row counts of every table in both
  bool check_ok = false;   // CopyVerifier::check on the copy
  bool priors_identical = false;
  [[nodiscard]] bool ok() const { return check_ok && report.counts_match() && priors_identical; }
};

// The steps transfer_store announces before it takes them (its caller prints them).
enum class TransferStep {
  resuming, // the destination holds a copy of this source, committed but not verified: verifying it
  copying,  // the destination is open: copying into it
};

// `rfdb copy --from FROM --to TO`: open `from` read-only; refuse a `to` that
// is the same database, holds data, or records a copy already verified,
// failed, or of another source; copy every table (copy_store), or only count
// the rows of a copy of `from` committed but not verified; then verify: the
// row counts, `verify.check` on the copy, and `verify.priors_json` of both,
// and record the verdict (k_copy_verified or k_copy_failed) in the
// destination. A SQLite file created here is removed again when the copy
// fails. `on_step` (may be empty) hears each step before it is taken, with
// the outcome so far (from, to, source_name, resumed).
// Errors: usage (the same database twice); not_found, io (a database that
// cannot be opened; hints name what --from and --to take); invalid_input (a
// refused destination, a schema mismatch); db; the verifier's errors.
Result<TransferOutcome>
transfer_store(const std::string& from, const std::string& to, const CopyVerifier& verify,
               const std::function<void(TransferStep, const TransferOutcome&)>& on_step);

// After rows were inserted with their primary keys given: bring every
// identity/serial sequence past the largest key, so the next ingest's
// generated ids do not collide. PostgreSQL: setval per identity column.
// SQLite: nothing to do (INTEGER PRIMARY KEY takes max(rowid) + 1).
// Errors: db.
Result<void> after_bulk_copy(Database& db);

} // namespace rfdb::store
