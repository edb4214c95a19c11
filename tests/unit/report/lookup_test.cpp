// `rfdb lookup`'s rules on hand-built candidates (report/lookup.hpp, docs/lookup.md): key
// resolution, GEAK's precision filter, the order of levers and reproductions by signature.
#include "report/lookup.hpp"
#include "report/lookup_store.hpp"

#include <gtest/gtest.h>

namespace rfdb::report {
namespace {

// A query for one kernel on one GPU, every filter unset.
LookupQuery query(std::string kernel, std::string gfx)
{
  LookupQuery q;
  q.kernel = std::move(kernel);
  q.gfx = std::move(gfx);
  return q;
}

LookupCandidate win(std::string run, std::string lever, double iso, double e2e, std::string date)
{
  LookupCandidate c;
  c.kernel = "_w8a8_block_fp8_matmul";
  c.gfx = "gfx950";
  c.dtype = "fp8";
  c.lever = lever;
  c.lever_key = std::move(lever);
  c.isolated_speedup = iso;
  c.e2e_delta_pct = e2e;
  c.win = true;
  c.clean = true;
  c.run_id = std::move(run);
  c.attempt_key = "cand:x";
  c.date = std::move(date);
  return c;
}

// A GEAK kb record of the same kernel (source "kb").
LookupCandidate record(std::string key, std::string direction, double iso, std::string date)
{
  LookupCandidate c;
  c.source = "kb";
  c.kb_record = std::move(key);
  c.kb_lane = "experience";
  c.kernel = "_w8a8_block_fp8_matmul";
  c.gfx = "gfx950";
  c.lever = std::move(direction);
  c.lever_key = "kb " + c.kb_record;
  c.isolated_speedup = iso;
  c.win = iso > 1.0;
  c.kb_reproductions = 1;
  c.date = std::move(date);
  return c;
}

TEST(LookupRules, PrecisionFollowsGeaksFilter)
{
  EXPECT_EQ(normalize_precision("FP8-w8a8"), "fp8_w8a8");
  EXPECT_EQ(normalize_precision("float8"), "fp8");
  EXPECT_EQ(normalize_precision("bfloat16"), "bf16");
  EXPECT_TRUE(precision_matches("f8", "fp8"));
  EXPECT_TRUE(precision_matches("fp8", "fp8_w8a8"));
  EXPECT_TRUE(precision_matches("fp8_w8a8", "fp8"));
  EXPECT_TRUE(precision_matches("fp8", ""));
  EXPECT_FALSE(precision_matches("fp8", "fp8x"));
  EXPECT_FALSE(precision_matches("fp8", "fp16"));
  EXPECT_FALSE(precision_matches("bf16", "int4"));
}

TEST(LookupRules, ExactThenNormalizedThenNearestNeverAnotherKernel)
{
  std::vector<LookupCandidate> cs{win("r1", "a", 1.5, 5.0, "2026-08-01")};
  cs.push_back(cs[0]);
  cs[1].kernel = "fused_moe_kernel";
  LookupQuery q = query("_w8a8_block_fp8_matmul", "gfx950");
  EXPECT_EQ(lookup(q, cs).match, KeyMatch::exact);
  q.kernel = "W8A8-Block.FP8 Matmul";
  const auto normalized = lookup(q, cs);
  EXPECT_EQ(normalized.match, KeyMatch::normalized);
  EXPECT_EQ(normalized.kernels, std::vector<std::string>{"_w8a8_block_fp8_matmul"});
  q.kernel = "fused_moe";
  const auto miss = lookup(q, cs);
  EXPECT_EQ(miss.match, KeyMatch::miss);
  EXPECT_TRUE(miss.levers.empty());
  ASSERT_EQ(miss.nearest.size(), 2U);
  EXPECT_EQ(miss.nearest[0], "fused_moe_kernel");
}

TEST(LookupRules, TierThenIsolatedThenE2eThenReproductions)
{
  // b: two independent clean runs (★★★) at +4 %; a: one clean run (★★) at +9 %; c: one clean
  // run (★★) at +9 % with a lower isolated speedup.
  std::vector<LookupCandidate> cs{
      win("r1", "a", 1.6, 9.0, "2026-08-01"), win("r2", "b", 1.2, 3.0, "2026-08-02"),
      win("r3", "b", 1.3, 5.0, "2026-08-03"), win("r4", "c", 1.4, 9.0, "2026-08-04")};
  const auto a = lookup(query("_w8a8_block_fp8_matmul", "gfx950"), cs);
  ASSERT_EQ(a.levers.size(), 3U);
  EXPECT_EQ(a.levers[0].lever_key, "b");
  EXPECT_EQ(a.levers[0].stars, 3);
  EXPECT_EQ(a.levers[0].reproductions, 2);
  EXPECT_DOUBLE_EQ(*a.levers[0].e2e_median_pct, 4.0);
  EXPECT_DOUBLE_EQ(*a.levers[0].e2e_min_pct, 3.0);
  EXPECT_DOUBLE_EQ(*a.levers[0].e2e_max_pct, 5.0);
  EXPECT_EQ(a.levers[0].freshness, "2026-08-03");
  EXPECT_EQ(a.levers[0].refs, (std::vector<std::string>{"r3#cand:x", "r2#cand:x"}));
  EXPECT_EQ(a.levers[1].lever_key, "a");
  EXPECT_EQ(a.levers[2].lever_key, "c");
}

TEST(LookupRules, ASameSignatureUnderAnotherLeverTextIsAReproduction)
{
  std::vector<LookupCandidate> cs{win("r1", "authored triton kernel", 1.9, 15.0, "2026-08-01"),
                                  win("r2", "code patch (triton)", 1.8, 12.0, "2026-08-02")};
  cs[0].content_signature = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";
  cs[1].content_signature = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";
  const auto a = lookup(query("_w8a8_block_fp8_matmul", "gfx950"), cs);
  ASSERT_EQ(a.levers.size(), 2U);
  EXPECT_EQ(a.levers[0].reproductions, 2);
  EXPECT_EQ(a.levers[1].reproductions, 2);
}

TEST(LookupRules, FiltersDropOtherGfxDtypeAndBackendButKeepUnstated)
{
  std::vector<LookupCandidate> cs{
      win("r1", "a", 1.6, 9.0, "2026-08-01"), win("r2", "b", 1.6, 8.0, "2026-08-01"),
      win("r3", "c", 1.6, 7.0, "2026-08-01"), win("r4", "d", 1.6, 6.0, "2026-08-01")};
  cs[1].dtype = "bf16";
  cs[2].backend = "ck";
  cs[3].gfx = "gfx942";
  LookupQuery q = query("_w8a8_block_fp8_matmul", "gfx950");
  q.dtype = "float8";
  q.backend = "triton";
  const auto a = lookup(q, cs);
  ASSERT_EQ(a.levers.size(), 1U);
  EXPECT_EQ(a.levers[0].lever_key, "a");
  q.gfx = "gfx1201";
  const auto elsewhere = lookup(q, cs);
  EXPECT_TRUE(elsewhere.levers.empty());
  EXPECT_EQ(elsewhere.other_gfx, (std::vector<std::string>{"gfx942", "gfx950"}));
}

TEST(LookupRules, AKbRecordWithARunsSignatureJoinsItsLeverAndCountsAsAReproduction)
{
  std::vector<LookupCandidate> cs{win("r1", "authored triton kernel", 1.9, 15.0, "2026-08-01"),
                                  record("20260910_000000_abc123", "block fp8 retile", 2.1, "2026-09-10")};
  cs[0].content_signature = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";
  cs[1].content_signature = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";
  cs[1].validations = 1;
  cs[1].inapplicable = 2;
  cs[1].techniques = {"split-k", "tile retune"};
  const auto a = lookup(query("_w8a8_block_fp8_matmul", "gfx950"), cs);
  ASSERT_EQ(a.levers.size(), 1U);
  const auto& l = a.levers[0];
  EXPECT_EQ(l.lever_key, "authored triton kernel");
  EXPECT_EQ(l.lever, "authored triton kernel"); // the run's text heads the lever
  EXPECT_EQ(l.reproductions, 2);                // the run and the record
  EXPECT_EQ(l.sources, (std::vector<std::string>{"kb record 20260910_000000_abc123", "run r1#cand:x"}));
  EXPECT_EQ(l.kb_records, std::vector<std::string>{"20260910_000000_abc123"});
  EXPECT_EQ(l.validations, 1);
  EXPECT_EQ(l.inapplicable, 2);
  EXPECT_EQ(l.techniques, (std::vector<std::string>{"split-k", "tile retune"}));
  EXPECT_DOUBLE_EQ(*l.iso_median, 2.0);
  EXPECT_EQ(l.freshness, "2026-09-10");
  EXPECT_EQ(l.show_command, "rfdb show --finding 20260910_000000_abc123");
  EXPECT_FALSE(l.retired);
}

TEST(LookupRules, ARetiredRecordIsListedLastWhateverItsSpeedup)
{
  // k3: retired by its ledger at 3.0×; k2: validated once at 1.3×; k1: a single record at 1.6×;
  // r1: a run win of one clean run (★★) at 1.2×.
  std::vector<LookupCandidate> cs{
      record("k1", "single", 1.6, "2026-09-01"), record("k2", "validated", 1.3, "2026-09-02"),
      record("k3", "retired", 3.0, "2026-09-03"), win("r1", "run lever", 1.2, 2.0, "2026-08-01")};
  cs[1].validations = 1;
  cs[2].retired = true;
  cs[2].retired_why = "ledger: last 3 attempts all negative";
  cs[2].failures = 2;
  cs[2].not_reproduced = 1;
  const auto a = lookup(query("_w8a8_block_fp8_matmul", "gfx950"), cs);
  ASSERT_EQ(a.levers.size(), 4U);
  EXPECT_EQ(a.levers[0].lever, "validated");
  EXPECT_EQ(a.levers[0].stars, 3);
  EXPECT_EQ(a.levers[0].tier_reason, "validated 1 time(s) by its kb attestation ledger");
  EXPECT_EQ(a.levers[1].lever, "run lever");
  EXPECT_EQ(a.levers[1].stars, 2);
  EXPECT_EQ(a.levers[2].lever, "single");
  EXPECT_EQ(a.levers[2].stars, 1);
  EXPECT_EQ(a.levers[3].lever, "retired");
  EXPECT_TRUE(a.levers[3].retired);
  EXPECT_EQ(a.levers[3].failures, 2);
  EXPECT_EQ(a.levers[3].not_reproduced, 1);
  EXPECT_EQ(a.levers[3].tier_reason.rfind("retired (k3: ledger: last 3 attempts all negative); ", 0), 0U)
      << a.levers[3].tier_reason;
}

TEST(LookupRules, ShapeAndCaseNarrowWhatStatesThemAndSayWhatCannot)
{
  std::vector<LookupCandidate> cs{
      record("k1", "one", 1.6, "2026-09-01"), record("k2", "two", 1.5, "2026-09-01"),
      record("k3", "three", 1.4, "2026-09-01"), win("r1", "run lever", 1.2, 2.0, "2026-08-01")};
  cs[0].cases = {"perf_M1_N7168", "perf_M64_N7168"};
  cs[1].cases = {"perf_M1024_N7168"};
  LookupQuery q = query("_w8a8_block_fp8_matmul", "gfx950");
  q.case_name = "perf_M1_N7168";
  const auto by_case = lookup(q, cs);
  std::vector<std::string> levers;
  for (const auto& l : by_case.levers) {
    levers.push_back(l.lever);
  }
  EXPECT_EQ(levers, (std::vector<std::string>{"run lever", "one", "three"}));
  EXPECT_EQ(by_case.notes, (std::vector<std::string>{"1 of 3 kb records state no case names; kept",
                                                     "run attempts carry no case names; not narrowed"}));
  q.case_name.reset();
  q.shape = "64,7168,4096";
  const auto by_shape = lookup(q, cs);
  EXPECT_EQ(by_shape.levers.size(), 4U);
  EXPECT_EQ(by_shape.notes, (std::vector<std::string>{"kb records carry no shape; not narrowed",
                                                      "run attempts carry no shape; not narrowed"}));
}

TEST(LookupRules, AShapeIsOneToFourPositiveIntegersInTheCommaForm)
{
  EXPECT_EQ(normalize_shape("16,4096,4096"), "16,4096,4096");
  EXPECT_EQ(normalize_shape("16x4096X4096"), "16,4096,4096");
  EXPECT_EQ(normalize_shape(" 16"), std::nullopt); // no spaces, as docs/lookup.md says
  EXPECT_EQ(normalize_shape("16,4096 "), std::nullopt);
  EXPECT_EQ(normalize_shape("2147483647"), "2147483647");
  EXPECT_EQ(normalize_shape("2147483648"), std::nullopt);
  EXPECT_EQ(normalize_shape("016,7168"), "16,7168");
  EXPECT_EQ(normalize_shape("64"), "64");
  EXPECT_EQ(normalize_shape("1,2,3,4"), "1,2,3,4");
  for (const char* bad : {"", "16,,4096", "16,4096,", "0,4096,4096", "-16,4096", "+16,4096", "16, 4096",
                          "16;4096", "M,N,K", "1,2,3,4,5", "16.5,4096", "2147483648,1"}) {
    EXPECT_FALSE(normalize_shape(bad).has_value()) << bad;
  }
}

TEST(LookupRules, ADtypeIsAPrecisionIdentifier)
{
  for (const char* good : {"fp8", "bf16", "FP8-w8a8", "float8_e4m3fn", "int4_w4a16", "mxfp4", "half"}) {
    EXPECT_TRUE(well_formed_dtype(good)) << good;
  }
  for (const char* bad :
       {"", "8bit", "fp8 ", "fp 8", "fp8,bf16", "fp8__w8a8", "fp8_", "_fp8", "c10::BFloat16", "torch.float8",
        "fp8\u00e9", "abcdefghijklmnopqrstuvwxyzabcdefg"}) {
    EXPECT_FALSE(well_formed_dtype(bad)) << bad;
  }
}

// lookup_heads filters the head verdicts run_lookup_candidates gathered in its one pass: the
// query's gfx, the exact name before the folded one, newest run first, measured before analytic.
TEST(LookupRules, TheHeadsOfAnUntriedKernelAreFilteredFromTheOnePass)
{
  const auto head = [](std::string run, std::string date, std::string gfx, std::string name,
                       std::string source) {
    LookupHead h;
    h.run_id = std::move(run);
    h.run_date = std::move(date);
    h.gfx = std::move(gfx);
    h.short_name = std::move(name);
    h.source_kind = std::move(source);
    h.round = "r0";
    h.pct_gpu_time = 12.5;
    return h;
  };
  const std::vector<LookupHead> all{head("a", "2026-08-01", "gfx950", "Fused-MoE", "analytic"),
                                    head("b", "2026-08-03", "gfx950", "fused_moe", "analytic"),
                                    head("b", "2026-08-03", "gfx950", "fused_moe", "measured"),
                                    head("c", "2026-08-05", "gfx942", "fused_moe", "measured"),
                                    head("d", "2026-08-02", "gfx950", "fused_moe", "analytic")};
  const auto exact = lookup_heads(all, "fused_moe", "gfx950");
  std::vector<std::string> got;
  for (const auto& h : exact) {
    got.push_back(h.run_id + " " + h.source_kind);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"b measured", "b analytic", "d analytic"}));
  const auto folded = lookup_heads(all, "FUSED.moe", "gfx950");
  ASSERT_EQ(folded.size(), 4U);
  EXPECT_EQ(folded.back().short_name, "Fused-MoE");
  EXPECT_TRUE(lookup_heads(all, "fused_moe", "gfx90a").empty());
}

} // namespace
} // namespace rfdb::report
