// Test support for the PostgreSQL store: per-test databases on RFDB_TEST_PG_URL (see pg.hpp).
#include "support/pg.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <libpq-fe.h>
#include <memory>
#include <random>

namespace rfdb::test {

namespace {

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnDeleter>;
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

ConnPtr connect(const std::string& url)
{
  ConnPtr conn(PQconnectdb(url.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to " << url << ": " << PQerrorMessage(conn.get());
  }
  return conn;
}

std::vector<std::string> run(const std::string& url, const std::string& sql)
{
  ConnPtr conn = connect(url);
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  ResultPtr res(PQexec(conn.get(), sql.c_str()));
  const auto status = PQresultStatus(res.get());
  std::vector<std::string> out;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    ADD_FAILURE() << sql << ": " << PQerrorMessage(conn.get());
    return out;
  }
  for (int r = 0; r < PQntuples(res.get()); ++r) {
    out.emplace_back(PQgetvalue(res.get(), r, 0));
  }
  return out;
}

} // namespace

std::optional<std::string> pg_test_url()
{
  const char* url = std::getenv("RFDB_TEST_PG_URL");
  if (url == nullptr || *url == '\0') {
    return std::nullopt;
  }
  return std::string(url);
}

std::string pg_url_for(const std::string& url, const std::string& dbname, const std::string& user)
{
  const std::size_t start = url.find("://") + 3;
  const std::size_t query = std::min(url.find('?', start), url.size());
  const std::size_t slash = std::min(url.find('/', start), query);
  std::string authority = url.substr(start, slash - start);
  if (!user.empty()) {
    const std::size_t at = authority.find('@');
    authority = user + (at == std::string::npos ? "@" + authority : authority.substr(at));
  }
  return url.substr(0, start) + authority + "/" + dbname + url.substr(query);
}

void pg_admin_exec(const std::string& sql)
{
  run(*pg_test_url(), sql);
}

PgTestDatabase::PgTestDatabase()
{
  std::random_device rd;
  m_name = fmt::format("rfdb_t_{:08x}{:08x}", rd(), rd());
  m_url = pg_url_for(*pg_test_url(), m_name);
  pg_admin_exec(fmt::format("CREATE DATABASE {}", m_name));
}

PgTestDatabase::~PgTestDatabase()
{
  pg_admin_exec(fmt::format("DROP DATABASE IF EXISTS {} WITH (FORCE)", m_name));
}

void PgTestDatabase::exec(const std::string& sql) const
{
  run(m_url, sql);
}

std::vector<std::string> PgTestDatabase::column(const std::string& sql) const
{
  return run(m_url, sql);
}

} // namespace rfdb::test
