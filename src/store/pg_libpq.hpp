// Internal to store/: libpq, loaded with dlopen on the first PostgreSQL
// connection instead of linked.
//
// Linking libpq made the dynamic loader map and relocate it and its ~20
// dependencies (Kerberos, LDAP, SASL, GnuTLS …) at the start of every rfdb
// command, a third of `rfdb --version`'s time, although only a
// `postgresql://` --db uses it. libpq-fe.h still gives the types; every
// function is called through Libpq, whose pointers have the declared types
// of the functions they hold (a signature mismatch does not compile).
#pragma once

#include "util/result.hpp"

#include <libpq-fe.h>

namespace rfdb::store::detail {

// The soname of libpq 15 (Debian package libpq5).
inline constexpr const char* k_libpq_soname = "libpq.so.5";

// The libpq functions the PostgreSQL backend calls: X(name) for each.
#define RFDB_LIBPQ_FUNCTIONS(X)                                                                              \
  X(PQclear)                                                                                                 \
  X(PQcmdTuples)                                                                                             \
  X(PQconnectdb)                                                                                             \
  X(PQdescribePrepared)                                                                                      \
  X(PQerrorMessage)                                                                                          \
  X(PQexec)                                                                                                  \
  X(PQexecParams)                                                                                            \
  X(PQexecPrepared)                                                                                          \
  X(PQfinish)                                                                                                \
  X(PQfname)                                                                                                 \
  X(PQftype)                                                                                                 \
  X(PQgetisnull)                                                                                             \
  X(PQgetlength)                                                                                             \
  X(PQgetvalue)                                                                                              \
  X(PQnfields)                                                                                               \
  X(PQntuples)                                                                                               \
  X(PQprepare)                                                                                               \
  X(PQresStatus)                                                                                             \
  X(PQresultErrorField)                                                                                      \
  X(PQresultStatus)                                                                                          \
  X(PQsetNoticeProcessor)                                                                                    \
  X(PQstatus)                                                                                                \
  X(PQtransactionStatus)

// One pointer per function, named as the function: lib.PQexec(conn, sql).
struct Libpq {
// `name` is the member's declarator, not an expression: no parentheses.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define RFDB_LIBPQ_MEMBER(name) decltype(&::name) name = nullptr;
  RFDB_LIBPQ_FUNCTIONS(RFDB_LIBPQ_MEMBER)
#undef RFDB_LIBPQ_MEMBER
};

// dlopen `soname` and resolve every function of Libpq; the library then
// stays loaded for the life of the process. Error (db): `soname` or one of
// the functions cannot be loaded; the message names `soname` and gives
// dlerror()'s reason, the hint says which package to install.
Result<Libpq> load_libpq(const char* soname);

// load_libpq(k_libpq_soname), done on the first call only (thread-safe);
// every later call returns the same table, or the same error.
const Result<Libpq>& libpq();

} // namespace rfdb::store::detail
