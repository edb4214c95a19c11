// Internal to store/: the SQLite error bridge and connection constants that
// database.cpp (statements) and database_open.cpp (connections) share.
#pragma once

#include "util/error.hpp"

#include <string_view>

namespace SQLite {
class Exception;
} // namespace SQLite

namespace rfdb::store::detail {

// How long a connection waits for a lock held by another process.
inline constexpr int k_busy_timeout_ms = 10000;

// Convert a SQLiteCpp exception at the store boundary, keeping SQLite's
// primary and extended codes; SQLITE_NOTADB becomes not_rfdb_db, SQLITE_FULL
// disk_full and SQLITE_READONLY read_only, each with a hint (classify_sqlite).
Error from_sqlite(const SQLite::Exception& e, std::string_view what);

// Give `err`, made from SQLite's primary result `code`, the rfdb code and
// hint that say what to do: SQLITE_FULL → disk_full, SQLITE_READONLY (and
// SQLITE_CANTOPEN when `unwritable`: the file or its directory cannot be
// written) → read_only, "the database is read-only (…)".
void classify_sqlite(Error& err, int code, bool unwritable = false);

// The hint of a database that cannot be written.
inline constexpr const char* k_read_only_hint =
    "pass --db PATH to a writable location, or fix the permissions of the database file and its "
    "directory (SQLite writes PATH-wal and PATH-shm beside it)";

} // namespace rfdb::store::detail
