// The PostgreSQL dialect without a server: the migrations define the same
// tables and columns (with the mapped types) as the SQLite ones, `:name`
// parameters number as libpq wants them, and reals print as SQLite's.
#include "rfdb_sql.hpp"
#include "support/helpers.hpp"

#include "store/database.hpp"
#include "store/pg_backend.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace rfdb::test {

namespace {

// table → [(column, declared type)], in column order.
using Columns = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

std::string upper(std::string s)
{
  for (auto& c : s) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

Columns sqlite_columns()
{
  SQLite::Database conn(":memory:", SQLite::OPEN_READWRITE);
  add_migration_functions(conn);
  for (const auto& m : sql::k_migrations) {
    conn.exec(std::string(m.sql));
  }
  Columns out;
  SQLite::Statement tables(conn, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (tables.executeStep()) {
    const std::string table = tables.getColumn(0).getString();
    SQLite::Statement info(conn, "SELECT name, type FROM pragma_table_info(?) ORDER BY cid");
    info.bind(1, table);
    while (info.executeStep()) {
      out[table].emplace_back(info.getColumn(0).getString(), upper(info.getColumn(1).getString()));
    }
  }
  return out;
}

// The SQLite type a PostgreSQL column type stands for.
std::string sqlite_type(const std::string& pg_type)
{
  if (pg_type == "BIGINT") {
    return "INTEGER";
  }
  if (pg_type == "DOUBLE") {
    return "REAL";
  }
  if (pg_type == "BYTEA") {
    return "BLOB";
  }
  return pg_type; // TEXT
}

// Columns from the CREATE TABLE, ALTER TABLE … ADD COLUMN, ALTER TABLE …
// DROP COLUMN and ALTER TABLE … RENAME COLUMN statements of the PostgreSQL migrations, applied in order
// (rfdb_meta, which SQLite keeps in PRAGMAs, aside).
Columns postgresql_columns()
{
  Columns out;
  const std::regex statement(
      R"(CREATE TABLE (\w+) \(|ALTER TABLE (\w+) ADD COLUMN (\w+) (\w+)|ALTER TABLE (\w+) DROP COLUMN (\w+))"
      R"(|ALTER TABLE (\w+) RENAME COLUMN (\w+) TO (\w+))");
  const std::regex column(R"(^\s*(\w+)\s+(\w+))");
  for (const auto& m : sql::k_pg_migrations) {
    const std::string text(m.sql);
    for (std::sregex_iterator it(text.begin(), text.end(), statement), end; it != end; ++it) {
      const std::smatch& st = *it;
      if (st[2].matched) { // ADD COLUMN
        out[st[2]].emplace_back(st[3], sqlite_type(st[4]));
        continue;
      }
      if (st[7].matched) { // RENAME COLUMN
        for (auto& c : out[st[7]]) {
          if (c.first == st[8]) {
            c.first = st[9];
          }
        }
        continue;
      }
      if (st[5].matched) { // DROP COLUMN
        auto& cols = out[st[5]];
        const std::string name = st[6];
        cols.erase(std::remove_if(cols.begin(), cols.end(), [&](const auto& c) { return c.first == name; }),
                   cols.end());
        continue;
      }
      const std::string table = st[1];
      const std::size_t body = static_cast<std::size_t>(st.position(0) + st.length(0));
      const std::size_t close = text.find("\n);", body);
      std::size_t pos = text.find('\n', body) + 1;
      while (pos < close) {
        const std::size_t eol = text.find('\n', pos);
        const std::string line = text.substr(pos, eol - pos);
        pos = eol + 1;
        std::smatch c;
        if (!std::regex_search(line, c, column)) {
          continue;
        }
        const std::string name = c[1];
        if (name == "UNIQUE" || name == "PRIMARY" || name == "CHECK" || name == "FOREIGN" ||
            name == "CONSTRAINT") {
          continue;
        }
        if (table != "rfdb_meta") {
          out[table].emplace_back(name, sqlite_type(c[2]));
        }
      }
    }
  }
  return out;
}

} // namespace

TEST(PgSchema, OneMigrationPerSqliteMigration)
{
  ASSERT_EQ(sql::k_pg_migrations.size(), sql::k_migrations.size())
      << "every migrations/NNNN_*.sql needs its migrations/postgresql/NNNN_*.sql";
  for (std::size_t i = 0; i < sql::k_migrations.size(); ++i) {
    EXPECT_EQ(sql::k_pg_migrations[i].name, sql::k_migrations[i].name) << "version " << i + 1;
  }
}

TEST(PgSchema, MigrationsDefineTheSameTablesColumnsAndTypes)
{
  const Columns sqlite = sqlite_columns();
  const Columns pg = postgresql_columns();
  ASSERT_FALSE(sqlite.empty());
  std::vector<std::string> sqlite_tables;
  std::vector<std::string> pg_tables;
  for (const auto& [t, cols] : sqlite) {
    sqlite_tables.push_back(t);
  }
  for (const auto& [t, cols] : pg) {
    pg_tables.push_back(t);
  }
  EXPECT_EQ(pg_tables, sqlite_tables);
  for (const auto& [table, cols] : sqlite) {
    const auto it = pg.find(table);
    if (it != pg.end()) {
      EXPECT_EQ(it->second, cols) << "table " << table;
    }
  }
  // A known value, so the parser above cannot silently find nothing.
  EXPECT_EQ(pg.at("sources").back(), (std::pair<std::string, std::string>{"sha256", "BLOB"}));
}

TEST(PgSchema, EveryVariantHasASqliteQueryOfItsName)
{
  for (const auto& v : sql::k_pg_queries) {
    const bool found = std::any_of(sql::k_queries.begin(), sql::k_queries.end(),
                                   [&](const sql::NamedQuery& q) { return q.name == v.name; });
    EXPECT_TRUE(found) << v.name;
  }
}

TEST(PgSchema, NumbersNamedParametersOncePerName)
{
  const auto n = store::detail::number_parameters(
      "SELECT ':skip', \":x\" -- :comment\n FROM t /* :c */ WHERE a = :a AND b::text = :b OR :a IS NULL");
  EXPECT_EQ(
      n.sql,
      "SELECT ':skip', \":x\" -- :comment\n FROM t /* :c */ WHERE a = $1 AND b::text = $2 OR $1 IS NULL");
  EXPECT_EQ(n.names, (std::vector<std::string>{"a", "b"}));
  const auto cast = store::detail::number_parameters("SELECT CAST(:v AS text), :v::bigint, :w_2");
  EXPECT_EQ(cast.sql, "SELECT CAST($1 AS text), $1::bigint, $2");
  EXPECT_EQ(cast.names, (std::vector<std::string>{"v", "w_2"}));
}

TEST(PgSchema, RealsPrintAsSqliteCastsThemToText)
{
  SQLite::Database conn(":memory:", SQLite::OPEN_READWRITE);
  SQLite::Statement s(conn, "SELECT CAST(? AS TEXT)");
  for (const double v : {0.1 + 0.2, 1.0, 100.0, -2.5, 1e-300, 1e20, 1.5e20, 1e15, 1e16, 123456.789, 1e-5,
                         0.000123, 3.14159265358979, 2.0 / 3.0, -1e-7, 5e-324}) {
    s.bind(1, v);
    ASSERT_TRUE(s.executeStep());
    EXPECT_EQ(store::detail::sqlite_real_text(v), s.getColumn(0).getString()) << v;
    s.reset();
  }
}

TEST(PgSchema, PostgresqlUrlsSelectTheBackend)
{
  EXPECT_TRUE(store::is_postgresql_url("postgresql://rfdb@db.example/team"));
  EXPECT_TRUE(store::is_postgresql_url("postgres://rfdb@/team?host=/tmp"));
  EXPECT_FALSE(store::is_postgresql_url("rfdb.sqlite"));
  EXPECT_FALSE(store::is_postgresql_url("/data/postgresql://x"));
  EXPECT_EQ(store::display_name("postgresql://ann:s3cret@db:5432/team"), "postgresql://ann:***@db:5432/team");
  EXPECT_EQ(store::display_name("postgresql://ann@db/team"), "postgresql://ann@db/team");
  EXPECT_EQ(store::display_name("team.sqlite"), "team.sqlite");
}

} // namespace rfdb::test
