// Pairing priors at two dates: keys joined across both sides, the change,
// and whether the intervals overlap (worked by hand below).
#include "support/helpers.hpp"

#include "calibrate/priors_compare.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

calibrate::PriorRow row(const std::string& op_class, std::optional<std::string> gfx, double target_eff, int n,
                        std::optional<calibrate::Interval> interval)
{
  calibrate::PriorRow r;
  r.op_class = op_class;
  r.gfx = std::move(gfx);
  r.target_eff = target_eff;
  r.n = n;
  r.interval = interval;
  r.source = n > 0 ? calibrate::PriorSource::calibrated : calibrate::PriorSource::seed;
  return r;
}

} // namespace

TEST(PriorsCompare, PairsKeysAndSaysWhetherTheIntervalsOverlap)
{
  calibrate::PriorsResult before;
  before.as_of = "2026-07-31";
  before.priors = {row("attn", std::nullopt, 0.4635, 1, calibrate::Interval{0.40, 0.46}),
                   row("moe", std::nullopt, 0.9036, 1, calibrate::Interval{0.90, 0.91})};
  calibrate::PriorsResult after;
  after.as_of = "2026-08-15";
  after.priors = {row("attn", std::nullopt, 0.5278, 2, calibrate::Interval{0.47, 0.53}),
                  row("attn", std::string("gfx950"), 0.5278, 2, calibrate::Interval{0.47, 0.53}),
                  row("moe", std::nullopt, 0.9036, 1, calibrate::Interval{0.905, 0.95})};
  const auto rows = calibrate::compare_priors(before, after);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].key, "attn");
  ASSERT_TRUE(rows[0].change);
  EXPECT_DOUBLE_EQ(*rows[0].change, 0.0643);   // 0.5278 − 0.4635
  EXPECT_EQ(rows[0].intervals_overlap, false); // [0.40, 0.46] ends before [0.47, 0.53]
  EXPECT_EQ(rows[1].key, "attn:gfx950");
  EXPECT_FALSE(rows[1].before) << "the key did not exist before";
  EXPECT_FALSE(rows[1].change);
  EXPECT_FALSE(rows[1].intervals_overlap);
  EXPECT_EQ(rows[2].key, "moe");
  EXPECT_DOUBLE_EQ(*rows[2].change, 0.0);
  EXPECT_EQ(rows[2].intervals_overlap, true);            // [0.90, 0.91] and [0.905, 0.95] share [0.905, 0.91]
  EXPECT_EQ(rows[0].cause, calibrate::ChangeCause::own); // n 1 → 2
  EXPECT_EQ(rows[2].cause, calibrate::ChangeCause::none);

  const auto json = nlohmann::json::parse(calibrate::render_compare_json(before, after, rows));
  EXPECT_EQ(json["before"]["as_of"], "2026-07-31");
  EXPECT_EQ(json["priors"][1]["before"], nullptr);
  EXPECT_EQ(json["priors"][1]["gfx"], "gfx950");
  EXPECT_EQ(json["priors"][0]["intervals_overlap"], false);
  EXPECT_EQ(json["priors"][0]["change_cause"], "own");
  EXPECT_EQ(json["priors"][1]["change_cause"], nullptr);
  const std::string table = calibrate::render_compare_table(before, after, rows);
  EXPECT_NE(
      table.find(
          "\nattn         0.4635  0.5278  +0.0643  1→2  [0.4000, 0.4600]  [0.4700, 0.5300]  NO       own "
          "evidence\n"),
      std::string::npos)
      << table;
}

// The issue-28 case: a gemm:gfx950 run is added, gemm:gfx942's own four
// observations of one run are untouched, and its value drifts with gemm
// minus gfx942 (its parent) from 0.8346 to 0.8269, beyond both zero-width-ish
// intervals. That is not a change of its own evidence.
TEST(PriorsCompare, ParentDriftIsNotAChange)
{
  auto gfx942 = [](double target_eff, double parent, calibrate::Interval interval) {
    calibrate::PriorRow r = row("gemm", std::string("gfx942"), target_eff, 4, interval);
    r.runs = 1;
    r.weight = 1.0;
    r.statistic = 0.80;
    r.parent = parent;
    return r;
  };
  calibrate::PriorsResult before;
  before.as_of = "2026-08-20";
  calibrate::PriorsResult after;
  after.as_of = "2026-08-24";
  calibrate::PriorRow gemm_before = row("gemm", std::nullopt, 0.8997, 5, calibrate::Interval{0.85, 0.90});
  gemm_before.runs = 2;
  gemm_before.weight = 1.25;
  calibrate::PriorRow gemm_after = row("gemm", std::nullopt, 0.8788, 9, calibrate::Interval{0.84, 0.90});
  gemm_after.runs = 3;
  gemm_after.weight = 2.25;
  before.priors = {gemm_before, gfx942(0.8346, 0.8917, {0.8330, 0.8350}),
                   row("gemm", std::string("gfx950"), 0.8923, 1, calibrate::Interval{0.8923, 0.8923})};
  after.priors = {gemm_after, gfx942(0.8269, 0.8582, {0.8250, 0.8275}),
                  row("gemm", std::string("gfx950"), 0.8353, 5, calibrate::Interval{0.80, 0.86})};
  const auto rows = calibrate::compare_priors(before, after);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[1].key, "gemm:gfx942");
  EXPECT_EQ(rows[1].cause, calibrate::ChangeCause::parent);
  EXPECT_DOUBLE_EQ(*rows[1].change, -0.0077);
  EXPECT_FALSE(rows[1].intervals_overlap) << "[0.8330, 0.8350] vs [0.8250, 0.8275] is not tested";
  EXPECT_EQ(rows[0].cause, calibrate::ChangeCause::own);
  EXPECT_EQ(rows[2].cause, calibrate::ChangeCause::own);
  EXPECT_EQ(rows[2].intervals_overlap, false);
  // The same observations with another weight (e.g. a half-life) are a change of its own.
  calibrate::PriorsResult reweighted = after;
  reweighted.priors[1].weight = 0.9;
  EXPECT_EQ(calibrate::compare_priors(before, reweighted)[1].cause, calibrate::ChangeCause::own);

  const auto json = nlohmann::json::parse(calibrate::render_compare_json(before, after, rows));
  EXPECT_EQ(json["priors"][1]["change_cause"], "parent");
  EXPECT_EQ(json["priors"][1]["intervals_overlap"], nullptr);
  EXPECT_EQ(json["priors"][1]["before"]["parent"], 0.8917);
  EXPECT_EQ(json["priors"][1]["after"]["parent"], 0.8582);
  EXPECT_EQ(json["priors"][1]["after"]["runs"], 1);
  EXPECT_EQ(json["priors"][1]["after"]["statistic"], 0.8);
  const std::string table = calibrate::render_compare_table(before, after, rows);
  EXPECT_EQ(table.find("NO       moved"), std::string::npos) << table;
  RFDB_EXPECT_GOLDEN("cli/priors_compare_parent.txt", table);
}

} // namespace rfdb::test
