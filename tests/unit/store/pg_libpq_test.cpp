// libpq loaded with dlopen: without a server, the loader resolves every
// function of the real libpq.so.5 and calls through it, and a missing
// library or function is an error naming the library and the package.
#include "store/pg_libpq.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rfdb::test {

namespace {

using store::detail::k_libpq_soname;
using store::detail::libpq;
using store::detail::load_libpq;

TEST(PgLibpq, ResolvesEveryFunctionOfLibpq5)
{
  const auto lib = load_libpq(k_libpq_soname);
  ASSERT_TRUE(lib) << lib.error().describe();
#define RFDB_EXPECT_RESOLVED(name) EXPECT_NE(lib->name, nullptr) << #name;
  RFDB_LIBPQ_FUNCTIONS(RFDB_EXPECT_RESOLVED)
#undef RFDB_EXPECT_RESOLVED
  EXPECT_EQ(std::string(lib->PQresStatus(PGRES_TUPLES_OK)), "PGRES_TUPLES_OK");
}

TEST(PgLibpq, CallsReachLibpq)
{
  const auto& lib = libpq();
  ASSERT_TRUE(lib) << lib.error().describe();
  // A bad option fails while the conninfo is parsed, before any network use.
  PGconn* conn = lib->PQconnectdb("sslmode=bogus");
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(lib->PQstatus(conn), CONNECTION_BAD);
  EXPECT_NE(std::string(lib->PQerrorMessage(conn)).find("invalid sslmode value: \"bogus\""),
            std::string::npos)
      << lib->PQerrorMessage(conn);
  lib->PQfinish(conn);
}

TEST(PgLibpq, LoadsOnceAndKeepsTheTable)
{
  const auto& first = libpq();
  const auto& second = libpq();
  EXPECT_EQ(&first, &second);
  ASSERT_TRUE(first);
  // The test binary links libpq too: dlopen returns that same library.
  EXPECT_EQ(first->PQexec, &::PQexec);
}

TEST(PgLibpq, MissingLibraryNamesItAndThePackage)
{
  const auto lib = load_libpq("libpq-does-not-exist.so.5");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, ErrorCode::db);
  EXPECT_EQ(lib.error().message,
            "cannot load the PostgreSQL client library libpq-does-not-exist.so.5: libpq-does-not-exist.so.5: "
            "cannot open shared object file: No such file or directory");
  EXPECT_EQ(lib.error().hint, "the PostgreSQL backend needs libpq 15 or newer: install the libpq5 package "
                              "(apt-get install libpq5)");
}

TEST(PgLibpq, LibraryWithoutTheFunctionsIsRefused)
{
  // libc is loaded in every process and has no PQ* function: the first one looked up is missing.
  const auto lib = load_libpq("libc.so.6");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, ErrorCode::db);
  const std::string& message = lib.error().message;
  EXPECT_TRUE(message.starts_with("cannot load the PostgreSQL client library libc.so.6: ")) << message;
  EXPECT_TRUE(message.ends_with("libc.so.6: undefined symbol: PQclear")) << message;
  EXPECT_NE(lib.error().hint.find("apt-get install libpq5"), std::string::npos);
}

} // namespace

} // namespace rfdb::test
