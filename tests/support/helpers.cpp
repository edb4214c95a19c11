#include "support/helpers.hpp"

#include "rfdb_sql.hpp"

#include "cli/app.hpp"
#include "store/database.hpp"
#include "store/sources.hpp"
#include "util/zstd.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <date/date.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sqlite3.h>
#include <sstream>

namespace rfdb::test {

namespace fs = std::filesystem;

namespace {

// test_unzstd(blob): the text of a zstd frame (the test's inverse of rfdb_zstd).
void sql_unzstd(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv)
{
  const auto* bytes = static_cast<const char*>(sqlite3_value_blob(argv[0]));
  const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
  auto text = util::zstd::decompress(std::string_view(bytes == nullptr ? "" : bytes, size));
  if (!text) {
    sqlite3_result_error(ctx, text.error().message.c_str(), -1);
    return;
  }
  sqlite3_result_text64(ctx, text->data(), text->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

// rfdb_zstd(x): one zstd frame of x, as the store registers it for migration 0008.
void sql_zstd(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv)
{
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  const auto* bytes = static_cast<const char*>(sqlite3_value_blob(argv[0]));
  const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
  const std::string frame = util::zstd::compress(std::string_view(bytes == nullptr ? "" : bytes, size));
  sqlite3_result_blob64(ctx, frame.data(), frame.size(), SQLITE_TRANSIENT);
}

// rfdb_unhex(x): the bytes hex text x spells, as the store registers it for migration 0010.
void sql_unhex(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv)
{
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
  const std::string bytes = store::digest_bytes(std::string_view(text == nullptr ? "" : text, size));
  sqlite3_result_blob64(ctx, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
}

// The columns of `table` in `schema` ("main" or "new"), in order.
std::vector<std::string> columns(SQLite::Database& conn, const std::string& schema, const std::string& table)
{
  SQLite::Statement s(conn, "SELECT name FROM pragma_table_info(:t, :s) ORDER BY cid");
  s.bind(":t", table);
  s.bind(":s", schema);
  std::vector<std::string> out;
  while (s.executeStep()) {
    out.push_back(s.getColumn(0).getString());
  }
  return out;
}

} // namespace

void add_migration_functions(SQLite::Database& conn)
{
  conn.createFunction("rfdb_zstd", 1, true, nullptr, sql_zstd);
  conn.createFunction("rfdb_unhex", 1, true, nullptr, sql_unhex);
}

void copy_to_older_schema(const fs::path& from, const fs::path& to, int version)
{
  SQLite::Database conn(to.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  conn.exec("PRAGMA journal_mode = WAL");
  add_migration_functions(conn);
  for (int i = 0; i < version; ++i) {
    conn.exec(std::string(sql::k_migrations[static_cast<std::size_t>(i)].sql));
  }
  conn.createFunction("test_unzstd", 1, true, nullptr, sql_unzstd);
  SQLite::Statement attach(conn, "ATTACH :file AS new");
  attach.bind(":file", from.string());
  attach.exec();
  std::vector<std::string> tables;
  SQLite::Statement list(conn, "SELECT name FROM main.sqlite_master WHERE type = 'table' ORDER BY name");
  while (list.executeStep()) {
    tables.push_back(list.getColumn(0).getString());
  }
  for (const auto& t : tables) {
    const auto have = columns(conn, "new", t);
    std::string names;
    std::string values;
    for (const auto& c : columns(conn, "main", t)) {
      std::string value = c;
      if (t == "sources" && c == "raw") {
        value = "test_unzstd(raw_zst)";
      } else if (t == "sources" && c == "sha256" && version < 10) {
        value = "lower(hex(sha256))"; // hex text before migration 0010
      } else if (t == "sources" && c == "size") {
        value = "bytes";
      } else if (c == "raw") {
        value = "'{}'";
      } else {
        if (std::find(have.begin(), have.end(), c) == have.end()) {
          throw std::runtime_error("copy_to_older_schema: no value for " + t + "." + c);
        }
      }
      names += (names.empty() ? "" : ", ") + c;
      values += (values.empty() ? "" : ", ") + value;
    }
    conn.exec("INSERT INTO main." + t + " (" + names + ") SELECT " + values + " FROM new." + t);
  }
  conn.exec("DETACH new");
  conn.exec("PRAGMA application_id = " + std::to_string(store::k_application_id));
  conn.exec("PRAGMA user_version = " + std::to_string(version));
}

TempDir::TempDir()
{
  std::random_device rd;
  for (int i = 0; i < 100; ++i) {
    auto candidate = fs::temp_directory_path() / ("rfdb_test_" + std::to_string(rd()));
    if (fs::create_directory(candidate)) {
      m_path = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir()
{
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

CliResult run_cli(const std::vector<std::string>& args)
{
  return run_cli_with(args, CliEnv{});
}

CliResult run_cli_with(const std::vector<std::string>& args, const CliEnv& env)
{
  std::ostringstream out;
  std::ostringstream err;
  using namespace date;
  const auto fixed = sys_days{2026_y / November / 30} + std::chrono::hours{12};
  cli::Context ctx{"", out, env.merged ? out : err,
                   [fixed] { return std::chrono::system_clock::time_point(fixed); }, env.terminal};
  ctx.interrupted = env.interrupted;
  ctx.aborted = env.aborted;
  CliResult r;
  r.code = cli::run_with(args, ctx, env.env_db);
  r.out = out.str();
  r.err = err.str();
  return r;
}

void ingest_runs(const fs::path& db, const std::vector<std::string>& runs)
{
  std::vector<std::string> args{"--db", db.string(), "ingest", "-q"};
  for (const auto& r : runs) {
    args.push_back(run_fixture(r).string());
  }
  const auto r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
}

TempDir* SampleDatabase::s_tmp = nullptr;
fs::path SampleDatabase::s_db;

void SampleDatabase::SetUpTestSuite()
{
  s_tmp = new TempDir();
  s_db = *s_tmp / "sample.sqlite";
  ingest_runs(s_db, k_all_runs);
}

void SampleDatabase::TearDownTestSuite()
{
  delete s_tmp;
  s_tmp = nullptr;
}

CliResult rfdb(const std::string& db, std::vector<std::string> args)
{
  args.insert(args.begin(), {"--db", db});
  return run_cli(args);
}

fs::path dev_run(const std::string& name)
{
  return fixtures_dir() / "dev-runs" / name;
}

std::string without_copy_state(const std::string& dump)
{
  const auto at = dump.find("## rfdb_meta\n");
  if (at == std::string::npos) {
    return dump;
  }
  const auto next = dump.find("## ", at + 3);
  return dump.substr(0, at) + (next == std::string::npos ? "" : dump.substr(next));
}

fs::path fixtures_dir()
{
  return RFDB_FIXTURES_DIR;
}
fs::path runs_dir()
{
  return fixtures_dir() / "runs";
}
fs::path run_fixture(const std::string& name)
{
  return runs_dir() / name;
}

std::string read_bytes(const fs::path& p)
{
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::string& content)
{
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
}

fs::path copy_run(const std::string& name, const fs::path& dir)
{
  const auto dest = dir / name;
  fs::copy(run_fixture(name), dest, fs::copy_options::recursive);
  return dest;
}

std::vector<std::string> list_dir(const fs::path& dir)
{
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// A read-only connection that creates no -wal/-shm beside a WAL file that
// has none (SQLite would, and leave them): immutable when no -wal exists.
SQLite::Database open_read_only(const fs::path& db)
{
  if (fs::exists(db.string() + "-wal")) {
    return SQLite::Database(db.string(), SQLite::OPEN_READONLY);
  }
  return SQLite::Database("file:" + db.string() + "?immutable=1", SQLite::OPEN_READONLY | SQLite::OPEN_URI);
}

} // namespace

std::string dump_tables(const fs::path& db)
{
  SQLite::Database conn = open_read_only(db);
  std::string out;
  SQLite::Statement tables(conn, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::vector<std::string> names;
  while (tables.executeStep()) {
    names.push_back(tables.getColumn(0).getString());
  }
  for (const auto& t : names) {
    out += "## " + t + "\n";
    SQLite::Statement rows(conn, "SELECT * FROM \"" + t + "\" ORDER BY 1");
    while (rows.executeStep()) {
      for (int c = 0; c < rows.getColumnCount(); ++c) {
        out += (c ? "|" : "") + (rows.isColumnNull(c) ? std::string("NULL") : rows.getColumn(c).getString());
      }
      out += "\n";
    }
  }
  return out;
}

std::string query_value(const fs::path& db, const std::string& sql)
{
  SQLite::Database conn = open_read_only(db);
  SQLite::Statement s(conn, sql);
  if (!s.executeStep()) {
    return "";
  }
  return s.isColumnNull(0) ? "NULL" : s.getColumn(0).getString();
}

bool update_golden(const std::string& rel, const std::string& actual)
{
  const char* flag = std::getenv("RFDB_UPDATE_GOLDEN");
  if (flag == nullptr || std::string(flag) != "1") {
    return false;
  }
  write_bytes(fs::path(RFDB_GOLDEN_DIR) / rel, actual);
  return true;
}

std::string read_golden(const std::string& rel)
{
  return read_bytes(fs::path(RFDB_GOLDEN_DIR) / rel);
}

} // namespace rfdb::test
