// Test support for the tests that need a PostgreSQL server (ctest label `postgres`): the
// throwaway cluster's URLs (tools/pg-cluster.sh) and a fresh database per test.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rfdb::test {

// $RFDB_TEST_PG_URL (the cluster's Unix socket, database `postgres`), or
// nullopt when unset or empty.
std::optional<std::string> pg_server_url();
// $RFDB_TEST_PG_TCP_URL (the same server over 127.0.0.1), else nullopt.
std::optional<std::string> pg_server_tcp_url();
// True when $RFDB_TEST_PG_REQUIRED=1 (tools/test.sh): a missing server is a failure, not a skip.
bool pg_required();

// `server_url` with its database (the last path component) replaced by `dbname`.
std::string pg_url_for(const std::string& server_url, const std::string& dbname);

// CREATE DATABASE <prefix>_<pid>_<n> on the server (through psql); returns
// its name. Fails the test (and returns "") when psql cannot.
std::string pg_create_database(const std::string& server_url, const std::string& prefix);

// Run one SQL statement through psql at `url`; its rows as `psql -At`
// prints them (fields joined by '|', one line per row). Fails the test on
// error and returns "".
std::string pg_query(const std::string& url, const std::string& sql);

} // namespace rfdb::test

// First statement of a test that needs the server: binds `var` to the server
// URL, or skips the test (fails it under RFDB_TEST_PG_REQUIRED=1). Name such
// tests Postgres* so tests/CMakeLists.txt labels them `postgres`.
#define RFDB_REQUIRE_PG(var)                                                                                 \
  const auto var##_opt = ::rfdb::test::pg_server_url();                                                      \
  if (!var##_opt) {                                                                                          \
    if (::rfdb::test::pg_required()) {                                                                       \
      FAIL() << "RFDB_TEST_PG_REQUIRED=1 but RFDB_TEST_PG_URL is not set (tools/pg-cluster.sh start)";       \
    }                                                                                                        \
    GTEST_SKIP() << "no PostgreSQL server: RFDB_TEST_PG_URL is not set (tools/pg-cluster.sh start)";         \
  }                                                                                                          \
  const std::string var = *var##_opt
