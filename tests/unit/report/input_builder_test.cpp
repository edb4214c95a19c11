// The report's input builder: the runs, read in table order, are put in run
// order, attempts stored in any order are credited to their own run, and
// attempts folded apart (on other threads) count as if folded together.
#include "support/attempts.hpp"

#include "report/digest.hpp"
#include "report/from_store.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rfdb::report {

namespace {

store::RunSummary run(std::string run_id, std::optional<std::string> run_date, std::string gfx)
{
  store::RunSummary r;
  r.run_id = std::move(run_id);
  r.run_date = std::move(run_date);
  r.gfx = std::move(gfx);
  r.validation_class = "unknown";
  return r;
}

store::Attempt attempt(std::string run_id, std::string key, double isolated_speedup)
{
  return test::measured_gemm_attempt(std::move(run_id), std::move(key), isolated_speedup);
}

// Five runs in table order, as a store holding runs ingested out of date
// order reads them: run_a on gfx942, run_u undated, the others on gfx950.
void add_runs(ReportInputBuilder& builder, const std::string& run_c_date)
{
  builder.add_run(run("run_c", run_c_date, "gfx950"));
  builder.add_run(run("run_a", "2026-05-01", "gfx942"));
  builder.add_run(run("run_u", std::nullopt, "gfx950"));
  builder.add_run(run("run_b", "2026-03-01", "gfx950"));
  builder.add_run(run("run_d", "2026-01-01", "gfx950"));
}

} // namespace

TEST(ReportInputBuilder, RunsReadOutOfOrderAreListedInRunOrderAndAttemptsKeepTheirRun)
{
  ReportInputBuilder builder("", std::nullopt, std::string("gfx950"), false);
  add_runs(builder, "2026-03-01");
  VerdictFold fold = builder.fold_verdicts();
  // Attempts in neither order, one run's in two pieces, one of a run not added.
  builder.add_attempt(attempt("run_b", "k|1", 1.5));
  builder.add_attempt(attempt("run_d", "k|1", 1.1));
  builder.add_attempt(attempt("run_c", "k|1", 1.2));
  builder.add_attempt(attempt("run_c", "k|2", 1.3));
  builder.add_attempt(attempt("run_a", "k|1", 2.0)); // gfx942: out of the --gfx scope
  builder.add_attempt(attempt("run_x", "k|1", 3.0)); // not a run of the report
  builder.add_attempt(attempt("run_b", "k|2", 1.7));
  builder.add_attempt(attempt("run_u", "k|1", 1.05));
  const ReportInput input = builder.finish(std::move(fold), calibrate::PriorsResult{});

  std::vector<std::string> order;
  for (const auto& r : input.runs) {
    order.push_back(r.run_id);
  }
  // Undated first, then by run_date, then by run_id.
  EXPECT_EQ(order, (std::vector<std::string>{"run_u", "run_d", "run_b", "run_c", "run_a"}));
  EXPECT_EQ(input.runs[1].run_date, "2026-01-01");
  EXPECT_EQ(input.runs[4].gfx, "gfx942");

  AttemptDigest& digest = *input.attempt_digest;
  EXPECT_EQ(digest.attempts, 6U); // run_a's is out of scope, run_x's has no run
  digest.seal();
  const auto best = [&](const std::string& run_id) {
    return digest.realized(run_id, "gemm_bf16").best_isolated;
  };
  EXPECT_EQ(best("run_b"), 1.7);
  EXPECT_EQ(best("run_c"), 1.3);
  EXPECT_EQ(best("run_d"), 1.1);
  EXPECT_EQ(best("run_u"), 1.05);
  EXPECT_EQ(best("run_a"), std::nullopt);
}

TEST(ReportInputBuilder, AttemptsFoldedApartAndTakenBackCountAsOneFold)
{
  ReportInputBuilder builder("", std::nullopt, std::string("gfx950"), false);
  add_runs(builder, "2026-04-01"); // run_c the newest in scope
  VerdictFold verdicts = builder.fold_verdicts();
  AttemptFold other = builder.fold_attempts();
  AttemptFold dropped = builder.fold_attempts();
  // The newest run's attempts and half of run_b's go to the other fold.
  builder.add_attempt(attempt("run_d", "k|1", 1.1));
  builder.add_attempt(attempt("run_b", "k|1", 1.5));
  builder.add_attempt(attempt("run_u", "k|1", 1.05));
  other.add(attempt("run_b", "k|2", 1.7));
  other.add(attempt("run_c", "k|1", 1.2));
  other.add(attempt("run_c", "k|2", 1.3));
  other.add(attempt("run_a", "k|1", 2.0));   // out of the --gfx scope
  other.add(attempt("run_x", "k|1", 3.0));   // not a run of the report
  dropped.add(attempt("run_d", "k|9", 9.0)); // never taken back
  builder.take_attempts(std::move(other));
  const ReportInput input = builder.finish(std::move(verdicts), calibrate::PriorsResult{});

  AttemptDigest& digest = *input.attempt_digest;
  EXPECT_EQ(digest.attempts, 6U);
  EXPECT_EQ(digest.newest.value(), "2026-04-01"); // only the other fold saw that date
  ASSERT_EQ(digest.by_class.count("gemm"), 1U);
  EXPECT_EQ(digest.by_class.at("gemm").attempts, 6);
  EXPECT_EQ(digest.by_class.at("gemm").measured.size(), 6U);
  digest.seal();
  const auto best = [&](const std::string& run_id) {
    return digest.realized(run_id, "gemm_bf16").best_isolated;
  };
  EXPECT_EQ(best("run_b"), 1.7); // its attempts in both folds
  EXPECT_EQ(best("run_c"), 1.3);
  EXPECT_EQ(best("run_d"), 1.1); // not the dropped fold's 9.0
  EXPECT_EQ(best("run_a"), std::nullopt);
}

// A measured / predicted ratio that is not a number (both speedups
// infinite, written into the store by hand) is no calibration sample: with a
// NaN among them the median depended on the order the samples came in.
TEST(ReportInputBuilder, ANotANumberRatioIsNoCalibrationSample)
{
  ReportInputBuilder builder("", std::nullopt, std::nullopt, false);
  add_runs(builder, "2026-03-01");
  VerdictFold verdicts = builder.fold_verdicts();
  const auto predicted = [](store::Attempt a, double attainable_speedup) {
    a.prediction.attainable_speedup = attainable_speedup;
    a.prediction.headroom_class = "moderate";
    return a;
  };
  const double inf = std::numeric_limits<double>::infinity();
  builder.add_attempt(predicted(attempt("run_b", "k|1", inf), inf));
  builder.add_attempt(predicted(attempt("run_c", "k|1", 1.2), 1.5));
  builder.add_attempt(predicted(attempt("run_d", "k|1", inf), 2.0));
  const ReportInput input = builder.finish(std::move(verdicts), calibrate::PriorsResult{});
  const ClassSample& gemm = input.attempt_digest->by_class.at("gemm");
  EXPECT_EQ(gemm.attempts, 3);
  EXPECT_EQ(gemm.predicted.size(), 3U);
  EXPECT_EQ(gemm.measured.size(), 3U);
  ASSERT_EQ(gemm.ratio.size(), 2U);
  EXPECT_DOUBLE_EQ(gemm.ratio[0], 0.8);
  EXPECT_EQ(gemm.ratio[1], inf);
}

} // namespace rfdb::report
