// The playbook stays the same size whatever the history: every section is
// capped. A large history is synthesized quickly by cloning the stored rows
// of the dev and sample runs in SQL (runs, attempts, verdicts), with dates
// spread over two years, lever spellings varied so What works overflows its
// cap, and a few GPUs. 2 000 runs by default (about 10 s under ASan);
// RFDB_SCALE_RUNS=30000 measures the figure, and RFDB_SCALE_KEEP=PATH
// keeps the database for `rfdb report` timings (tools/bench/README.md).
#include "support/helpers.hpp"
#include "support/report_parts.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;

// INSERT … SELECT of every column of `table` but `skip`, with `overrides`
// replacing a column's expression, once per k.n in 1..copies.
void clone_table(SQLite::Database& db, const std::string& table, const std::string& skip,
                 const std::vector<std::pair<std::string, std::string>>& overrides, int copies)
{
  std::string cols;
  std::string exprs;
  SQLite::Statement info(db, "SELECT name FROM pragma_table_info('" + table + "')");
  while (info.executeStep()) {
    const std::string c = info.getColumn(0).getString();
    if (c == skip) {
      continue;
    }
    std::string e = "t." + c;
    for (const auto& [name, expr] : overrides) {
      e = name == c ? expr : e;
    }
    cols += (cols.empty() ? "" : ", ") + c;
    exprs += (exprs.empty() ? "" : ", ") + e;
  }
  db.exec("WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < " +
          std::to_string(copies) + ") INSERT INTO " + table + " (" + cols + ") SELECT " + exprs + " FROM " +
          table + " t, k WHERE t.run_id NOT LIKE '%\\_c%' ESCAPE '\\'");
}

// Make `copies` clones of every stored run.
void clone_runs(const fs::path& path, int copies)
{
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE);
  SQLite::Transaction tx(db);
  const std::string id = "t.run_id || '_c' || k.n";
  clone_table(db, "runs", "",
              {{"run_id", id},
               {"run_date", "date(t.run_date, '-' || (k.n % 730) || ' days')"},
               {"model", "t.model || ' v' || (k.n % 40)"},
               {"gfx", "CASE k.n % 4 WHEN 0 THEN 'gfx90a' WHEN 1 THEN 'gfx1100' ELSE t.gfx END"}},
              copies);
  clone_table(db, "attempts", "attempt_id",
              {{"run_id", id}, {"lever", "t.lever || ' variant ' || (k.n % 60)"}}, copies);
  clone_table(db, "verdicts", "verdict_id", {{"run_id", id}}, copies);
  tx.commit();
}

int scale_runs()
{
  const char* v = std::getenv("RFDB_SCALE_RUNS");
  return v != nullptr ? std::atoi(v) : 2000;
}

std::size_t count(const std::string& text, const std::string& needle)
{
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

std::string section(const std::string& md, const std::string& heading)
{
  const std::size_t from = md.find("\n## " + heading + "\n");
  const std::size_t to = md.find("\n## ", from + 4);
  return md.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

TEST(PlaybookSize, EverySectionIsCappedOnALargeHistory)
{
  TempDir tmp;
  const fs::path db = tmp / "large.sqlite";
  std::vector<std::string> args{"--db", db.string(), "ingest", "-q"};
  for (const auto& dir : {fixtures_dir() / "dev-runs", runs_dir()}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.is_directory()) {
        args.push_back(e.path().string());
      }
    }
  }
  ASSERT_EQ(run_cli(args).code, 0);
  const int base = std::stoi(query_value(db, "SELECT count(*) FROM runs"));
  ASSERT_EQ(base, 7);
  const int copies = (scale_runs() + base - 1) / base - 1;
  clone_runs(db, copies);
  const int runs = std::stoi(query_value(db, "SELECT count(*) FROM runs"));
  ASSERT_GE(runs, scale_runs());
  if (const char* keep = std::getenv("RFDB_SCALE_KEEP")) {
    fs::copy_file(db, keep, fs::copy_options::overwrite_existing);
  }

  const auto r = run_cli({"--db", db.string(), "report"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string& md = r.out;
  EXPECT_LT(md.size(), 200'000u) << runs << " runs";
  RecordProperty("runs", runs);
  RecordProperty("playbook_bytes", static_cast<int>(md.size()));
  EXPECT_TRUE(md.find(" more (`rfdb runs`)") != std::string::npos) << "model list capped";
  EXPECT_LE(count(section(md, "Routing quality"), "\n| `"), 20u);
  EXPECT_NE(md.find("more: `rfdb query playbook_disagreements`"), std::string::npos);
  EXPECT_LE(count(section(md, "Calibration"), "\n- `"), 10u);
  EXPECT_NE(md.find("more: `rfdb query playbook_misses`"), std::string::npos);
  EXPECT_LE(count(section(md, "What works"), "\n- \u2605"), 60u); // ★★★ stays, the freshest 60 shown
  EXPECT_NE(md.find("evicted (cap 40). Every attempt behind them: `rfdb export --format json`."),
            std::string::npos);
  EXPECT_LE(count(section(md, "Cautions"), "\n- Also verify"), 20u);
  EXPECT_NE(md.find("more: `rfdb query playbook_cautions`"), std::string::npos);
  EXPECT_LE(count(section(md, "Saturated heads"), "\n| "), 2u + 5u * 4u); // header rows + class × gfx
  EXPECT_NE(md.find("saturated head verdicts in all; every one: `rfdb query playbook_saturated_heads`."),
            std::string::npos);
  // The report splits the attempts between two threads and merges their
  // digests; dealt in parts here, every capped section (misses, cautions,
  // What works, routing quality) and card says what one fold says.
  EXPECT_EQ(report_in_parts(db, 1, false), md);
  EXPECT_EQ(report_in_parts(db, 3, false), md);
  const std::string with_cards = report_in_parts(db, 1, true);
  EXPECT_EQ(report_in_parts(db, 4, true), with_cards);
}

} // namespace
} // namespace rfdb::test
