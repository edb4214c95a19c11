// The derivation rules cannot change without k_derivation_version moving
// (ingest/evaldir/derive.hpp, docs/development.md "Derivation version").
//
// A SHA-256 over a canonical dump of every row derive_run makes from the four
// dev runs (tests/fixtures/dev-runs) is kept in
// tests/golden/derivation/dev_runs.sha256 beside the k_derivation_version it
// was computed at. Derived rows that differ from the golden hash fail while
// the version stays where the golden says; RFDB_UPDATE_GOLDEN=1 records a new
// hash only once the version has moved, so a rule change lands with its bump.
#include "support/helpers.hpp"

#include "ingest/evaldir/derive.hpp"
#include "util/digest.hpp"
#include "util/hex.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;

const std::string k_golden = "derivation/dev_runs.sha256";

// In ingest order (ids follow it, so the order is part of the dump).
const std::vector<std::string> k_dev_runs = {
    "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931",      // D6
    "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726", // D7
    "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817",    // D8
    "e2e_Kimi-K2.6_20260621_142207_774130_3902",              // D9
};

// The tables derive_run fills from a run's files (not the stored files
// themselves, the dictionaries, retractions or imported knowledge).
const std::vector<std::string> k_derived_tables = {
    "runs",     "profile_rounds",  "kernel_samples", "verdicts",  "roofline_docs", "bench_summaries",
    "attempts", "attempt_sources", "observations",   "run_stack", "bench_samples", "run_limitations",
};

// Columns that say when or from where a run was ingested, or which version
// derived it: not what the rules made of the files.
const std::set<std::string> k_not_derived = {"first_ingested_at", "last_ingested_at", "eval_dir",
                                             "derived_by"};

// Every derived row as text: "## table", the column names, then one line per
// row in primary-key order, each value as SQLite's quote() spells it.
std::string derived_dump(const fs::path& db)
{
  SQLite::Database conn(db.string(), SQLite::OPEN_READONLY);
  std::string out;
  for (const auto& table : k_derived_tables) {
    std::vector<std::string> columns;
    SQLite::Statement info(conn, "SELECT name FROM pragma_table_info(?) ORDER BY cid");
    info.bind(1, table);
    while (info.executeStep()) {
      if (k_not_derived.count(info.getColumn(0).getString()) == 0) {
        columns.push_back(info.getColumn(0).getString());
      }
    }
    std::string select;
    for (const auto& c : columns) {
      select += (select.empty() ? "" : ", ") + fmt::format("quote(\"{}\")", c);
    }
    out += "## " + table + "\n";
    for (const auto& c : columns) {
      out += c + "|";
    }
    out += "\n";
    SQLite::Statement rows(conn, fmt::format("SELECT {} FROM \"{}\" ORDER BY 1", select, table));
    while (rows.executeStep()) {
      for (int c = 0; c < rows.getColumnCount(); ++c) {
        out += rows.getColumn(c).getString() + "|";
      }
      out += "\n";
    }
  }
  return out;
}

struct Recorded {
  std::int64_t version = -1;
  std::string sha256;
};

// The golden file: "k_derivation_version N\nsha256 HEX\n".
Recorded read_recorded()
{
  std::istringstream in(read_golden(k_golden));
  Recorded r;
  std::string key;
  while (in >> key) {
    if (key == "k_derivation_version") {
      in >> r.version;
    } else if (key == "sha256") {
      in >> r.sha256;
    }
  }
  return r;
}

TEST(DerivationVersion, DerivedRowsOfTheDevRunsMatchTheHashOfTheirVersion)
{
  TempDir tmp;
  const fs::path db = tmp.path() / "rfdb.sqlite";
  for (const auto& run : k_dev_runs) {
    const auto r = run_cli({"--db", db.string(), "ingest", (fixtures_dir() / "dev-runs" / run).string()});
    ASSERT_EQ(r.code, 0) << run << ": " << r.err;
  }
  const std::string dump = derived_dump(db);
  ASSERT_NE(dump.find("## attempts"), std::string::npos);
  const std::string actual = util::hex_encode(util::sha256(dump));
  const Recorded recorded = read_recorded();
  const std::int64_t version = ingest::k_derivation_version;
  const std::string rule =
      "When derived rows change, bump k_derivation_version (src/ingest/evaldir/derive.hpp, with a line "
      "saying what changed) so stored runs are re-derived, then record the new hash with "
      "RFDB_UPDATE_GOLDEN=1 (docs/development.md, \"Derivation version\").";
  const char* update = std::getenv("RFDB_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    // Recording a new hash at the version of the old one would hide the change.
    ASSERT_TRUE(actual == recorded.sha256 || version != recorded.version)
        << "the derived rows of the dev runs changed but k_derivation_version is still " << version
        << ", the version " << k_golden << " was recorded at. " << rule;
    update_golden(k_golden, fmt::format("k_derivation_version {}\nsha256 {}\n", version, actual));
    GTEST_SKIP() << "golden file " << k_golden << " regenerated";
  }
  EXPECT_EQ(recorded.version, version)
      << "k_derivation_version moved to " << version << " but " << k_golden << " was recorded at "
      << recorded.version << ": record the hash of the new rules with RFDB_UPDATE_GOLDEN=1.";
  EXPECT_EQ(recorded.sha256, actual) << "the derived rows of the dev runs changed. " << rule;
}

} // namespace
} // namespace rfdb::test
