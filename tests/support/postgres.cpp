// The PostgreSQL test server's URLs and fresh databases on it (see postgres.hpp).
#include "support/postgres.hpp"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace rfdb::test {

namespace {

std::optional<std::string> env(const char* name)
{
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return std::nullopt;
  }
  return std::string(v);
}

// 'text' quoted for a POSIX shell.
std::string shell_quoted(const std::string& s)
{
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

} // namespace

std::optional<std::string> pg_server_url()
{
  return env("RFDB_TEST_PG_URL");
}

std::optional<std::string> pg_server_tcp_url()
{
  return env("RFDB_TEST_PG_TCP_URL");
}

bool pg_required()
{
  return env("RFDB_TEST_PG_REQUIRED").value_or("") == "1";
}

std::string pg_url_for(const std::string& server_url, const std::string& dbname)
{
  const auto query = server_url.find('?');
  const std::string base = server_url.substr(0, query);
  const std::string rest = query == std::string::npos ? "" : server_url.substr(query);
  const auto slash = base.rfind('/');
  const auto scheme_end = base.find("://");
  if (slash == std::string::npos || scheme_end == std::string::npos || slash < scheme_end + 3) {
    return base + "/" + dbname + rest;
  }
  return base.substr(0, slash + 1) + dbname + rest;
}

std::string pg_query(const std::string& url, const std::string& sql)
{
  const std::string cmd =
      "psql " + shell_quoted(url) + " -X -q -A -t -v ON_ERROR_STOP=1 -c " + shell_quoted(sql) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    ADD_FAILURE() << "cannot run psql";
    return "";
  }
  std::string out;
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), p) != nullptr) {
    out += buf.data();
  }
  if (pclose(p) != 0) {
    ADD_FAILURE() << "psql failed on " << sql << ": " << out;
    return "";
  }
  return out;
}

std::string pg_create_database(const std::string& server_url, const std::string& prefix)
{
  static std::atomic<int> counter{0};
  const std::string name = prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  pg_query(server_url, "CREATE DATABASE \"" + name + "\"");
  return ::testing::Test::HasFailure() ? "" : name;
}

} // namespace rfdb::test
