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
// primary and extended codes; SQLITE_NOTADB becomes not_rfdb_db.
Error from_sqlite(const SQLite::Exception& e, std::string_view what);

} // namespace rfdb::store::detail
