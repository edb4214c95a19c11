// Per-run noise and the profiler bias rule (domain/noise.hpp), with real values
// from the dev runs (docs/playbook.md, "Noise measured per run").
#include "domain/noise.hpp"
#include "domain/roofline.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace rfdb::domain;

TEST(Noise, SpreadIsRangeOverMedianLikeBenchSummarize)
{
  // Qwen3.5-122B baseline/bench_summary.json: all_throughput, spread 0.94 %.
  const std::vector<double> base{3727.261, 3692.364, 3712.4};
  EXPECT_NEAR(*spread_pct(base), 0.94, 0.005);
  const std::vector<double> one{452.7};
  EXPECT_DOUBLE_EQ(*spread_pct(one), 0.0); // a single sample: 0, not unknown
  EXPECT_FALSE(spread_pct(std::vector<double>{}));
  EXPECT_FALSE(spread_pct(std::vector<double>{0.0, 0.0}));
  const std::vector<double> even{90.0, 100.0, 110.0, 120.0}; // median 105
  EXPECT_NEAR(*spread_pct(even), 30.0 / 105.0 * 100.0, 1e-12);
}

TEST(Noise, RunBandIsTheWiderOfMeasuredAndFixed)
{
  const E2eBand measured = run_e2e_band(0.94);
  EXPECT_DOUBLE_EQ(measured.pct, 0.94);
  EXPECT_EQ(measured.source, BandSource::measured);
  const E2eBand narrow = run_e2e_band(0.3);
  EXPECT_DOUBLE_EQ(narrow.pct, k_e2e_noise_pct);
  EXPECT_EQ(narrow.source, BandSource::fixed);
  EXPECT_EQ(run_e2e_band(std::nullopt).source, BandSource::fixed);
  EXPECT_EQ(run_e2e_band(k_e2e_noise_pct).source, BandSource::fixed); // equal: the fixed band decides
  EXPECT_DOUBLE_EQ(run_e2e_band(6.1, 3.4).pct, 6.1);
}

TEST(Noise, AWinInsideTheRunsSpreadIsNotBeyondNoise)
{
  // The case: +0.94 % on a run whose baseline spread is 0.94 % is
  // no gain, although it is beyond the fixed 0.5 % band.
  EXPECT_TRUE(is_e2e_gain(0.94));
  EXPECT_FALSE(is_e2e_gain(0.94, run_e2e_band(0.94)));
  EXPECT_TRUE(is_e2e_gain(1.36, run_e2e_band(0.94))); // the run's MoE config tune
  // Kimi-K2.6: --max-num-batched-tokens 16384 at +1.37 % against its 1.30 % spread.
  EXPECT_TRUE(is_e2e_gain(1.37, run_e2e_band(1.30)));
  EXPECT_FALSE(is_e2e_gain(1.25, run_e2e_band(1.30)));
  EXPECT_FALSE(is_e2e_gain(0.4, run_e2e_band(std::nullopt)));
}

TEST(Noise, ReferenceBenchRoles)
{
  EXPECT_TRUE(is_reference_bench_role("baseline"));
  EXPECT_TRUE(is_reference_bench_role("validation_base"));
  EXPECT_TRUE(is_reference_bench_role("overlay_ref"));
  EXPECT_FALSE(is_reference_bench_role("overlay_cand"));
  EXPECT_FALSE(is_reference_bench_role("config"));
  EXPECT_FALSE(is_reference_bench_role("validation_final"));
}

TEST(Noise, ProfilerUndercountsHbmOnGfx950BeforeRocprofCompute35)
{
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "3.4"));
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "3.4.0"));
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "rocprofiler-compute version: 3.1.1")); // the dev runs'
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "v2.9"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "3.5"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "rocprofiler-compute version: 3.5.0"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "3.10.0")); // 10 > 5, not "3.1"
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "4.0"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "3.5.0.dev1+g12ab")); // release tuple only
  EXPECT_FALSE(profiler_undercounts_hbm("gfx942", "3.4"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", ""));           // unknown version: not flagged
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "unknown"));    // no digits
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "3"));           // 3 → 3.0
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "3.4.9.post2")); // PEP 440 post of 3.4.9
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "3.5rc1"));     // release part 3.5
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "rocprofiler-compute version: 3.12.0")); // 12 > 5
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "rocprof-compute 3.4.0 (ROCm 7.1.1)"));
  // ROCm named first: the tool's version decides, not ROCm 7.1.1's.
  EXPECT_TRUE(profiler_undercounts_hbm("gfx950", "ROCm 7.1.1 rocprofiler-compute 3.1.1"));
  EXPECT_FALSE(profiler_undercounts_hbm("gfx950", "ROCm 7.0.0 rocprofiler-compute (3.5.1)"));
}

TEST(Noise, JudgeE2eAgainstTheRunsBand)
{
  const E2eBand measured = run_e2e_band(0.94);
  const E2eBand fixed_band = run_e2e_band(0.3);
  EXPECT_EQ(judge_e2e(0.94, measured), E2eJudgement::inside); // not beyond its own spread
  EXPECT_EQ(judge_e2e(0.95, measured), E2eJudgement::beyond);
  EXPECT_EQ(judge_e2e(0.94, fixed_band), E2eJudgement::beyond); // beyond ±0.5 %
  EXPECT_EQ(judge_e2e(0.5, fixed_band), E2eJudgement::inside);
  // A loss keeps the fixed edge whatever the band: −0.6 % is a loss on a 0.94 % band.
  EXPECT_EQ(judge_e2e(-0.6, measured), E2eJudgement::loss);
  EXPECT_EQ(judge_e2e(-0.5, fixed_band), E2eJudgement::loss);
  EXPECT_EQ(judge_e2e(-0.49, fixed_band), E2eJudgement::inside);
  EXPECT_EQ(to_string(E2eJudgement::beyond), "beyond");
  EXPECT_EQ(to_string(E2eJudgement::inside), "inside");
  EXPECT_EQ(to_string(E2eJudgement::loss), "loss");
  EXPECT_EQ(to_string(measured.source), "measured");
  EXPECT_EQ(to_string(fixed_band.source), "fixed");
}
