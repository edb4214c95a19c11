// Test support for the PostgreSQL store: a fresh database per test on the
// server RFDB_TEST_PG_URL names (a libpq URI whose role may create
// databases and roles, e.g. postgresql://rfdb@/postgres?host=/tmp/pg), and
// the skip when it is unset.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace rfdb::test {

// $RFDB_TEST_PG_URL, or nullopt when unset or empty.
std::optional<std::string> pg_test_url();

// Skip the current test when no server is configured.
#define RFDB_REQUIRE_PG()                                                                                    \
  do {                                                                                                       \
    if (!::rfdb::test::pg_test_url()) {                                                                      \
      GTEST_SKIP() << "RFDB_TEST_PG_URL is not set (tools/pg-cluster.sh starts a throwaway server)";         \
    }                                                                                                        \
  } while (false)

// `url` with its database name replaced by `dbname` (and, when `user` is
// given, its user name).
std::string pg_url_for(const std::string& url, const std::string& dbname, const std::string& user = "");

// A database `rfdb_t_<random>` created on the test server, dropped (with
// FORCE) on destruction.
class PgTestDatabase {
public:
  PgTestDatabase();
  ~PgTestDatabase();
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  // The URI of the new database, for --db.
  [[nodiscard]] const std::string& url() const { return m_url; }
  [[nodiscard]] const std::string& name() const { return m_name; }
  // Run `sql` in the new database as the test role; fails the test on error.
  void exec(const std::string& sql) const;
  // The first column of every row of `sql` ("" for NULL).
  [[nodiscard]] std::vector<std::string> column(const std::string& sql) const;

private:
  std::string m_name;
  std::string m_url;
};

// Run `sql` on the server's maintenance database (RFDB_TEST_PG_URL itself).
void pg_admin_exec(const std::string& sql);

} // namespace rfdb::test
