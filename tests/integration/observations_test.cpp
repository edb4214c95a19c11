// The materialized observation rows (migration 0009): written in the run's
// ingest transaction, replaced when a run is re-derived (a changed file, rows
// of an older rfdb), back-filled by the migration, left out for a retracted
// run, and read by `rfdb priors` / `rfdb report` to the same output as the
// full attempt rows.
#include "support/helpers.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/priors_format.hpp"
#include "store/database.hpp"
#include "store/evidence.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What migration 0009 derives from attempts, runs and verdicts, row for row,
// with migration 0016's profiler_hbm_undercount (the attempt's).
const std::string k_derived = R"(
SELECT a.attempt_id, a.run_id, r.run_date, r.gfx, a.op_class, a.regime, a.round, a.short_name, a.lever,
       a.isolated_speedup, a.e2e_delta_pct, a.pred_roofline_pct, a.pred_attainable_speedup,
       a.pred_pct_gpu_time, a.pred_headroom_class, a.pred_confidence, a.pred_suspect,
       coalesce(v.dispatch_bound, 0), a.post_efficiency, a.output_parity, a.reject_reason,
       a.profiler_hbm_undercount
FROM attempts a
JOIN runs r ON r.run_id = a.run_id
LEFT JOIN verdicts v ON v.verdict_id = a.pred_verdict_id)";

// Rows of the table that differ from the derivation, either way ("0" when in step).
std::string out_of_step(const fs::path& db)
{
  return query_value(db, "SELECT (SELECT count(*) FROM (" + k_derived +
                             " EXCEPT SELECT * FROM observations)) + (SELECT count(*) FROM (SELECT * FROM "
                             "observations EXCEPT " +
                             k_derived + "))");
}

std::string priors_out(const fs::path& db, const std::string& by, bool include_biased_profiler = false)
{
  std::vector<std::string> args = {"--db", db.string(), "priors", "--by", by, "--format", "json"};
  if (include_biased_profiler) {
    args.emplace_back("--include-biased-profiler");
  }
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return r.out;
}

// The same computation over observations_from(load_evidence(…)),
// the full rows the estimator read before the table existed.
std::string priors_from_attempts(const fs::path& db, calibrate::PriorsLevel level)
{
  auto conn = store::Database::open_read_only(db.string());
  EXPECT_TRUE(conn.has_value());
  auto evidence = store::load_evidence(*conn, {});
  EXPECT_TRUE(evidence.has_value());
  calibrate::PriorsParams p;
  p.level = level;
  auto attempts = calibrate::observations_from(*evidence);
  auto censored = calibrate::censored_observations(*conn, {}); // heads never tried
  EXPECT_TRUE(censored.has_value());
  attempts.insert(attempts.end(), censored->begin(), censored->end());
  auto result = calibrate::compute_priors(attempts, p);
  EXPECT_TRUE(result.has_value());
  return calibrate::render_priors(*result, calibrate::PriorsFormat::json);
}

// The sample runs, built once for this file's fixture tests.
class ObservationsSample : public SampleDatabase {};

} // namespace

TEST_F(ObservationsSample, ObservationRowsAreTheAttemptsDerivation)
{
  EXPECT_EQ(query_value(s_db, "SELECT count(*) FROM observations"),
            query_value(s_db, "SELECT count(*) FROM attempts"));
  EXPECT_NE(query_value(s_db, "SELECT count(*) FROM observations"), "0");
  EXPECT_EQ(out_of_step(s_db), "0");
}

TEST_F(ObservationsSample, PriorsFromTheTableEqualPriorsFromTheAttempts)
{
  for (const auto& [by, level] :
       {std::pair{"class", calibrate::PriorsLevel::op_class},
        std::pair{"class,gfx", calibrate::PriorsLevel::op_class_gfx},
        std::pair{"class,gfx,regime", calibrate::PriorsLevel::op_class_gfx_regime}}) {
    EXPECT_EQ(priors_out(s_db, by), priors_from_attempts(s_db, level)) << by;
  }
}

TEST(Observations, ReplacedWhenARunIsRederived)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_gemm_run, tmp.path());
  ingest_runs(db, {k_canonical_run});
  ASSERT_EQ(run_cli({"--db", db.string(), "ingest", run.string()}).code, 0);
  EXPECT_EQ(out_of_step(db), "0");
  const std::string before = priors_out(db, "class,gfx,regime");

  // A changed file: the run is re-derived in one transaction.
  const fs::path file = run / "env_report.json";
  write_bytes(file, read_bytes(file) + "\n");
  auto r = run_cli({"--db", db.string(), "ingest", "--format", "json", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["paths"][0]["status"], "updated") << r.out;
  EXPECT_EQ(out_of_step(db), "0");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM observations"),
            query_value(db, "SELECT count(*) FROM attempts"));
  EXPECT_EQ(priors_out(db, "class,gfx,regime"), before);

  // Rows an older rfdb wrote (one attempt missing, stale version): re-derived.
  {
    SQLite::Database conn(db.string(), SQLite::OPEN_READWRITE);
    conn.exec("PRAGMA foreign_keys = ON");
    conn.exec("DELETE FROM attempts WHERE attempt_id = (SELECT max(attempt_id) FROM attempts)");
    conn.exec("UPDATE runs SET derived_by = 0");
  }
  EXPECT_EQ(out_of_step(db), "0"); // the cascade took the attempt's row along
  r = run_cli({"--db", db.string(), "ingest", run.string(), run_fixture(k_canonical_run).string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(out_of_step(db), "0");
  EXPECT_EQ(priors_out(db, "class,gfx,regime"), before);
}

TEST(Observations, ARetractedRunLeavesThePriorsAndComesBack)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  ingest_runs(db, k_all_runs);
  const std::string all = priors_out(db, "class,gfx");
  ingest_runs(tmp / "two.sqlite", {k_canonical_run, k_gemm_run});
  const std::string two = priors_out(tmp / "two.sqlite", "class,gfx");
  ASSERT_NE(all, two);
  ASSERT_EQ(run_cli({"--db", db.string(), "retract", k_attn_run, "--reason", "bad profile"}).code, 0);
  EXPECT_EQ(priors_out(db, "class,gfx"), two);
  EXPECT_EQ(out_of_step(db), "0"); // retraction filters at read time; the rows stay
  ASSERT_EQ(run_cli({"--db", db.string(), "restore", k_attn_run}).code, 0);
  EXPECT_EQ(priors_out(db, "class,gfx"), all);
}

TEST(Observations, TheMigrationBackFillsAnOlderDatabase)
{
  TempDir tmp;
  const auto current = tmp / "current.sqlite";
  ingest_runs(current, k_all_runs);
  // With the flagged observations counted: a database migrated from before
  // migration 0016 holds profiler_hbm_undercount 0 until its runs are
  // re-derived (the next ingest; k_derivation_version 6), so the default
  // priors would differ by the sample Llama run's flagged observation.
  const std::string regime = priors_out(current, "class,gfx,regime", true);
  // As schema 8 left it: no observations table.
  const auto db = tmp / "rfdb.sqlite";
  copy_to_older_schema(current, db, 8);
  ASSERT_EQ(query_value(db, "SELECT count(*) FROM sqlite_master WHERE name = 'observations'"), "0");
  const auto m = run_cli({"--db", db.string(), "migrate"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM observations"),
            query_value(db, "SELECT count(*) FROM attempts"));
  EXPECT_EQ(out_of_step(db), "0");
  EXPECT_EQ(priors_out(db, "class,gfx,regime", true), regime);
}

} // namespace rfdb::test
