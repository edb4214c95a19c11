// `rfdb lookup` over a mixed store: the four dev runs (tests/fixtures/dev-runs), the GEAK kb
// fixtures (tests/fixtures/kb: a kb store and a kb_artifacts tree) and one more experience
// written here whose csha: signature is the one D6's authored Triton kernel is signed with, so a
// run attempt and a kb record are one lever with both sources (docs/lookup.md).
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string k_d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
const std::string k_d7 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726";
const std::string k_d8 = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";
const std::string k_d9 = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
const std::string k_overlay_csha = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";
const std::string k_joined = "20260910_000000_abc123";
const std::string k_retired = "20260911_000000_def456";

// Two experiences of _w8a8_block_fp8_matmul on gfx950: one signed like D6's kernel and
// validated once; one at a larger speedup that its ledger retired (failed, not_reproduced).
void write_extra_tree(const fs::path& root)
{
  const fs::path slug = root / "gfx950" / "triton" / "_w8a8_block_fp8_matmul__triton__gfx950";
  write_bytes(slug / k_joined / "meta.yaml", R"(lifecycle: active
carrier: patch
gfx: gfx950
kernel_class: triton
kernel_name: _w8a8_block_fp8_matmul
language: triton
metric: {speedup: 1.901, metric_kind: geomean, case_names: [perf_M16_N4096_K4096]}
direction: authored block-fp8 triton kernel
techniques: [tile retune, split-k]
content_signature: )" + k_overlay_csha + R"(
reproductions: 1
verified_on: '2026-09-10'
verified_stack: {rocm: 7.2.0-43, triton: 3.5.0}
attestations:
  recalls: 2
  validations: 1
  failures: 0
  not_reproduced: 0
  inapplicable: 1
  history:
  - {at: '2026-09-11T00:00:00Z', outcome: validated, by: kernel_lane}
  - {at: '2026-09-12T00:00:00Z', outcome: inapplicable, by: kernel_lane}
)");
  write_bytes(slug / k_retired / "patch.diff", "--- a/k.py\n+++ b/k.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n");
  write_bytes(slug / k_retired / "meta.yaml", R"(lifecycle: active
carrier: patch
gfx: gfx950
kernel_class: triton
kernel_name: _w8a8_block_fp8_matmul
language: triton
metric: {speedup: 2.6, metric_kind: geomean}
direction: persistent kernel with stream-k
reproductions: 1
verified_on: '2026-09-11'
verified_stack: {rocm: 7.2.0-43}
attestations:
  recalls: 2
  validations: 0
  failures: 1
  not_reproduced: 1
  inapplicable: 0
  history:
  - {at: '2026-09-12T00:00:00Z', outcome: failed, by: kernel_lane}
  - {at: '2026-09-13T00:00:00Z', outcome: not_reproduced, by: kernel_lane}
)");
}

class MixedLookup : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "mixed.sqlite";
    write_extra_tree(*s_tmp / "extra" / "kb_artifacts");
    std::vector<std::string> args{"--db", s_db.string(), "ingest", "-q"};
    for (const auto& run : {k_d6, k_d7, k_d8, k_d9}) {
      args.push_back(dev_run(run).string());
    }
    args.push_back((fixtures_dir() / "kb" / "store").string());
    args.push_back((fixtures_dir() / "kb" / "kb_artifacts").string());
    args.push_back((*s_tmp / "extra" / "kb_artifacts").string());
    const auto r = run_cli(args);
    // The malformed silu_mul experience is skipped with a warning (exit 0 without --strict).
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }
  static json lookup_json(std::vector<std::string> args)
  {
    args.insert(args.begin(), {"--db", s_db.string(), "lookup"});
    args.insert(args.end(), {"--format", "json"});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out);
  }
  static std::vector<std::string> levers_of(const json& j)
  {
    std::vector<std::string> out;
    for (const auto& l : j.at("levers")) {
      out.push_back(l.at("lever").get<std::string>());
    }
    return out;
  }
  static TempDir* s_tmp;
  static fs::path s_db;
};
TempDir* MixedLookup::s_tmp = nullptr;
fs::path MixedLookup::s_db;

TEST_F(MixedLookup, ARunAndAKbRecordOfOneSignatureAreOneLeverWithBothSources)
{
  const auto j = lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950"});
  EXPECT_EQ(levers_of(j),
            (std::vector<std::string>{"authored triton kernel",
                                      "backend ck (env VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_LINEAR=1 "
                                      "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=a8w8_blockscale_tp4.csv)",
                                      "persistent kernel with stream-k"}));
  const auto& l = j.at("levers")[0];
  EXPECT_EQ(l.at("tier"), 3);
  EXPECT_EQ(l.at("reproductions"), 2); // D6 and the kb record
  EXPECT_DOUBLE_EQ(l.at("isolated_speedup").at("median").get<double>(), 1.9);
  EXPECT_DOUBLE_EQ(l.at("isolated_speedup").at("min").get<double>(), 1.899);
  EXPECT_DOUBLE_EQ(l.at("isolated_speedup").at("max").get<double>(), 1.901);
  EXPECT_DOUBLE_EQ(l.at("e2e_gain_pct").at("median").get<double>(), 15.81);
  EXPECT_EQ(
      l.at("sources").at("all"),
      json::array({"kb record " + k_joined, "run " + k_d6 + "#cand:cand__w8a8_block_fp8_matmul_triton"}));
  EXPECT_EQ(l.at("kb_records"), json::array({k_joined}));
  EXPECT_EQ(l.at("attestations"),
            (json{{"validated", 1}, {"failed", 0}, {"not_reproduced", 0}, {"inapplicable", 1}}));
  EXPECT_EQ(l.at("techniques"), json::array({"split-k", "tile retune"}));
  EXPECT_EQ(l.at("apply").at("export"), "rfdb export --raw " + k_d6 + " --out DIR");
  EXPECT_EQ(l.at("apply").at("show"), "rfdb show --finding " + k_joined);
  EXPECT_EQ(l.at("freshness"), "2026-09-10");
  EXPECT_FALSE(l.at("retired").get<bool>());
  // The retired record is last despite its 2.6×, marked retired with its ledger.
  const auto& r = j.at("levers")[2];
  EXPECT_TRUE(r.at("retired").get<bool>());
  EXPECT_EQ(r.at("retired_why"), k_retired + ": ledger: last 2 attempts all negative");
  EXPECT_DOUBLE_EQ(r.at("isolated_speedup").at("median").get<double>(), 2.6);
  EXPECT_EQ(r.at("attestations"),
            (json{{"validated", 0}, {"failed", 1}, {"not_reproduced", 1}, {"inapplicable", 0}}));
  EXPECT_EQ(r.at("apply").at("kind"), "patch");
  EXPECT_EQ(r.at("apply").at("files"),
            json::array({"kb_artifacts/gfx950/triton/_w8a8_block_fp8_matmul__triton__gfx950/" + k_retired +
                         "/patch.diff"}));
  EXPECT_EQ(r.at("sources").at("all"), json::array({"kb record " + k_retired}));
}

TEST_F(MixedLookup, KbRecordsAloneAnswerForAKernelTheRunsDidNotWin)
{
  // D7's MoE tune is no win; the kb store session and its experience (one csha:) are one lever,
  // before the old-order session's smaller speedup.
  const auto j = lookup_json({"fused_moe_kernel", "--gfx", "gfx950"});
  EXPECT_EQ(j.at("attempts"), 2); // D7's two MoE attempts
  EXPECT_EQ(j.at("kb_records"), 3);
  EXPECT_EQ(levers_of(j),
            (std::vector<std::string>{"BLOCK_SIZE_K retune for decode M", "num_warps 4->8 for prefill"}));
  const auto& l = j.at("levers")[0];
  EXPECT_EQ(l.at("kb_records"),
            json::array({"20260903_141522_3fa9c1", "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e"}));
  EXPECT_EQ(l.at("tier"), 1);
  EXPECT_EQ(l.at("reproductions"), 1);
  EXPECT_EQ(l.at("content_signatures"), json::array({"csha:4b3227c7e42ea185afcd6249b62c0476"}));
  EXPECT_EQ(l.at("stack"), "rocm 7.2.0-43, torch 2.9.0, triton 3.5.0");
  EXPECT_EQ(l.at("freshness"), "2026-09-03");
  EXPECT_TRUE(l.at("sources").at("runs").empty());

  // With a model and workload, the e2e session's accepted kernel comes first: validated, with
  // its throughput against the baseline.
  const auto e2e = lookup_json(
      {"fused_moe_kernel", "--gfx", "gfx950", "--model", "qwen3-235b", "--workload", "1024/1024/64"});
  ASSERT_EQ(e2e.at("levers").size(), 3U) << e2e.dump(1);
  const auto& top = e2e.at("levers")[0];
  EXPECT_EQ(top.at("lever"), "aiter-moe-routing");
  EXPECT_EQ(top.at("tier"), 3);
  EXPECT_DOUBLE_EQ(top.at("isolated_speedup").at("median").get<double>(), 1.87);
  EXPECT_NEAR(top.at("e2e_gain_pct").at("median").get<double>(), 8.2999, 1e-3);
  EXPECT_EQ(top.at("throughput_tok_s"), (json{{"measured", 10412.6}, {"baseline", 9614.6}}));
  EXPECT_EQ(top.at("kb_records"), json::array({"geak-qwen3-235b-a22b-c939d33115ec-03a28a8d23d2"}));
}

TEST_F(MixedLookup, TheKbSourceShowsItsAttestationCountsAndRetiredRecordsAreMarked)
{
  // moe_stage1 on gfx942: the store session (validated then failed) and its experience (one
  // failure) share a signature; their ledgers are summed.
  const auto ms = lookup_json({"moe_stage1", "--gfx", "gfx942"});
  ASSERT_EQ(ms.at("levers").size(), 1U) << ms.dump(1);
  EXPECT_EQ(ms.at("levers")[0].at("attestations"),
            (json{{"validated", 1}, {"failed", 2}, {"not_reproduced", 0}, {"inapplicable", 0}}));
  EXPECT_EQ(ms.at("levers")[0].at("tier"), 3);
  // rmsnorm_fwd: retired by its ledger; listed, marked retired.
  const auto rms = lookup_json({"rmsnorm_fwd", "--gfx", "gfx950"});
  ASSERT_EQ(rms.at("levers").size(), 1U);
  EXPECT_TRUE(rms.at("levers")[0].at("retired").get<bool>());
  // gemm_a8w8_blockscale: the tombstone and the retired tuned-table experience, a tuned table.
  const auto gemm = lookup_json({"gemm_a8w8_blockscale", "--gfx", "gfx950"});
  ASSERT_FALSE(gemm.at("levers").empty());
  for (const auto& l : gemm.at("levers")) {
    EXPECT_TRUE(l.at("retired").get<bool>()) << l.dump(1);
  }
}

TEST_F(MixedLookup, CaseNarrowsKbRecordsAndShapeSaysItCannot)
{
  const auto by_case = lookup_json({"fused_moe_kernel", "--gfx", "gfx950", "--case", "perf_M999_N1"});
  EXPECT_EQ(levers_of(by_case), std::vector<std::string>{"num_warps 4->8 for prefill"});
  EXPECT_EQ(by_case.at("notes"), json::array({"1 of 3 kb records state no case names; kept",
                                              "run attempts carry no case names; not narrowed"}));
  const auto by_shape = lookup_json({"fused_moe_kernel", "--gfx", "gfx950", "--shape", "64,7168,4096"});
  EXPECT_EQ(by_shape.at("levers").size(), 2U);
  EXPECT_EQ(by_shape.at("notes"), json::array({"kb records carry no shape; not narrowed",
                                               "run attempts carry no shape; not narrowed"}));
}

TEST_F(MixedLookup, AMissNamesTheNearestKeysOfBothSources)
{
  const auto r = run_cli({"--db", s_db.string(), "lookup", "moe_stage", "--gfx", "gfx942"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no stored evidence for kernel 'moe_stage'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nearest kernels: moe_stage1, "), std::string::npos) << r.err;
}

TEST_F(MixedLookup, GoldenTable)
{
  const auto r = run_cli(
      {"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  RFDB_EXPECT_GOLDEN("cli/lookup_kb.txt", r.out);
}

TEST_F(MixedLookup, GoldenTableNarrowedByCase)
{
  const auto rms = run_cli({"--db", s_db.string(), "lookup", "fused_moe_kernel", "--gfx", "gfx950", "--case",
                            "perf_M1_N7168", "--format", "table"});
  ASSERT_EQ(rms.code, 0) << rms.err;
  RFDB_EXPECT_GOLDEN("cli/lookup_kb_case.txt", rms.out);
}

} // namespace
} // namespace rfdb::test
