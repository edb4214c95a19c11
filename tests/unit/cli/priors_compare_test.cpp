// Pairing priors at two dates: keys joined across both sides, the change,
// and whether the intervals overlap (worked by hand below).
#include "cli/priors_compare.hpp"

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
  const auto rows = cli::compare_priors(before, after);
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
  EXPECT_EQ(rows[2].intervals_overlap, true); // [0.90, 0.91] and [0.905, 0.95] share [0.905, 0.91]

  const auto json = nlohmann::json::parse(cli::render_compare_json(before, after, rows));
  EXPECT_EQ(json["before"]["as_of"], "2026-07-31");
  EXPECT_EQ(json["priors"][1]["before"], nullptr);
  EXPECT_EQ(json["priors"][1]["gfx"], "gfx950");
  EXPECT_EQ(json["priors"][0]["intervals_overlap"], false);
  const std::string table = cli::render_compare_table(before, after, rows);
  EXPECT_NE(
      table.find("\nattn         0.4635  0.5278  +0.0643  1→2  [0.4000, 0.4600]  [0.4700, 0.5300]  NO\n"),
      std::string::npos)
      << table;
}

} // namespace rfdb::test
