// `rfdb lookup` and the candidates' content signatures on the four dev runs
// (tests/fixtures/dev-runs; docs/lookup.md). D6 and D8 ship a final diff whose sections are
// the overlay modules their patch candidates name; D7 and D9 ship none (their tuned tables are
// not in the corpus), so three candidates are signed.
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string k_d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
const std::string k_d7 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726";
const std::string k_d8 = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";
const std::string k_d9 = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
// Python transcription of GEAK-KB §3.3 over the overlay/sitecustomize.py section of D6's
// final/final_patch.diff (its one changed line "+# overlay module (content omitted in this
// corpus)"; the two "+" blank lines are skipped). D8's sections carry the same text.
const std::string k_overlay_csha = "csha:4ba4f6446b6b97a59a99e8df7cb65a9d";

class DevRunsLookup : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "dev.sqlite";
    std::vector<std::string> args{"--db", s_db.string(), "ingest", "-q"};
    for (const auto& run : {k_d6, k_d7, k_d8, k_d9}) {
      args.push_back(dev_run(run).string());
    }
    const auto r = run_cli(args);
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
  static TempDir* s_tmp;
  static fs::path s_db;
};
TempDir* DevRunsLookup::s_tmp = nullptr;
fs::path DevRunsLookup::s_db;

TEST_F(DevRunsLookup, APatchCandidateIsSignedWithItsSectionOfTheFinalDiff)
{
  const auto r = run_cli({"--db", s_db.string(), "show", k_d6, "--attempt",
                          "cand:cand__w8a8_block_fp8_matmul_triton", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto a = json::parse(r.out);
  EXPECT_EQ(a.at("content_signature"), k_overlay_csha);
  const auto& sources = a.at("sources");
  EXPECT_TRUE(std::any_of(sources.begin(), sources.end(), [](const json& s) {
    return s.at("path") == "final/final_patch.diff" && s.at("kind") == "patch";
  })) << sources.dump(1);
  // Exactly the three candidates whose code patch is a section of a stored final diff.
  EXPECT_EQ(query_value(s_db, "SELECT count(*) FROM attempts WHERE content_signature IS NOT NULL"), "3");
  EXPECT_EQ(query_value(s_db, "SELECT group_concat(attempt_key, ' ') FROM (SELECT attempt_key FROM attempts "
                              "WHERE content_signature = '" +
                                  k_overlay_csha + "' ORDER BY attempt_key)"),
            "cand:cand__fwd_grouped_kernel_stage1_rewrite cand:cand__fwd_kernel_rebind "
            "cand:cand__w8a8_block_fp8_matmul_triton");
  // The env swap sibling stores no implementation.
  EXPECT_EQ(query_value(s_db, "SELECT content_signature FROM attempts WHERE attempt_key = "
                              "'cand:cand__w8a8_block_fp8_matmul_aiter_swap'"),
            "NULL");
}

TEST_F(DevRunsLookup, TheHeadKernelOfEachRunGetsItsLeversBestFirst)
{
  // D6: the verified authored Triton kernel (★★★) before the accepted, undeployed CK tune (★★).
  const auto d6 = lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950"});
  EXPECT_EQ(d6.at("match"), "exact");
  EXPECT_EQ(d6.at("attempts"), 4);
  const auto& l6 = d6.at("levers");
  ASSERT_EQ(l6.size(), 2U) << l6.dump(1);
  EXPECT_EQ(l6[0].at("lever"), "authored triton kernel");
  EXPECT_EQ(l6[0].at("tier"), 3);
  EXPECT_DOUBLE_EQ(l6[0].at("isolated_speedup").at("median").get<double>(), 1.899);
  EXPECT_DOUBLE_EQ(l6[0].at("e2e_gain_pct").at("median").get<double>(), 15.81);
  EXPECT_EQ(l6[0].at("apply").at("kind"), "patch");
  EXPECT_EQ(l6[0].at("apply").at("files"), json::array({"final/final_patch.diff"}));
  // Its own section of the shared final diff, as export --kb writes it (signed_patch), not the
  // whole diff that also adds another candidate's module.
  EXPECT_EQ(l6[0].at("apply").at("text"),
            "final/final_patch.diff, section overlay/sitecustomize.py (lines 1-8)");
  EXPECT_EQ(
      l6[0].at("apply").at("section"),
      json({{"file", "final/final_patch.diff"}, {"changes", "overlay/sitecustomize.py"}, {"lines", {1, 8}}}));
  EXPECT_EQ(l6[0].at("apply").at("export"), "rfdb export --raw " + k_d6 + " --out DIR");
  EXPECT_EQ(l6[0].at("content_signatures"), json::array({k_overlay_csha}));
  EXPECT_EQ(l6[0].at("freshness"), "2026-08-22");
  EXPECT_EQ(l6[0].at("stack"), "vllm 0.26.1.dev37+g9c1d2e4.rocm712");
  EXPECT_EQ(l6[1].at("lever_key"), "aiter_tuned_gemm_a8w8_blockscale");
  EXPECT_EQ(l6[1].at("tier"), 2);
  EXPECT_DOUBLE_EQ(l6[1].at("e2e_gain_pct").at("median").get<double>(), 6.46);
  EXPECT_EQ(l6[1].at("apply").at("kind"), "env");
  EXPECT_EQ(l6[1].at("apply").at("text"), "VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_LINEAR=1 "
                                          "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=a8w8_blockscale_tp4.csv");

  // D7: the warm-start CK table, capped at ★★ by the lost validation (1.0016×).
  const auto d7 = lookup_json({"kentry", "--gfx", "gfx950"});
  ASSERT_EQ(d7.at("levers").size(), 1U);
  EXPECT_EQ(d7.at("levers")[0].at("tier"), 2);
  EXPECT_NE(d7.at("levers")[0].at("tier_reason").get<std::string>().find("validation lost"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(d7.at("levers")[0].at("e2e_gain_pct").at("median").get<double>(), 19.45);
  // D7's MoE tune (1.028× isolated, inside the band) is no win.
  EXPECT_TRUE(lookup_json({"fused_moe_kernel", "--gfx", "gfx950"}).at("levers").empty());

  // D8: the split-KV rewrite; the rejected aggressive one and the stacked launcher are not levers.
  const auto d8 = lookup_json({"_fwd_grouped_kernel_stage1", "--gfx", "gfx950"});
  ASSERT_EQ(d8.at("levers").size(), 1U);
  EXPECT_EQ(d8.at("levers")[0].at("lever"), "authored rewrite kernel");
  EXPECT_DOUBLE_EQ(d8.at("levers")[0].at("isolated_speedup").at("median").get<double>(), 1.92);
  EXPECT_EQ(d8.at("levers")[0].at("sources").at("attempts"),
            json::array({k_d8 + "#cand:cand__fwd_grouped_kernel_stage1_rewrite"}));

  // D9 (gfx942): the verified int4 MoE config tune, applied by its env binding.
  const auto d9 = lookup_json({"fused_moe_kernel_gptq_awq", "--gfx", "gfx942"});
  ASSERT_EQ(d9.at("levers").size(), 1U);
  EXPECT_EQ(d9.at("levers")[0].at("tier"), 3);
  EXPECT_EQ(d9.at("levers")[0].at("apply").at("kind"), "env");
  EXPECT_EQ(d9.at("levers")[0].at("apply").at("text"), "VLLM_TUNED_CONFIG_FOLDER=moe_tuned_int4");
  EXPECT_DOUBLE_EQ(d9.at("levers")[0].at("e2e_gain_pct").at("median").get<double>(), 16.049);
}

TEST_F(DevRunsLookup, ANormalizedNameResolvesToTheStoredKernel)
{
  const auto j = lookup_json({"W8A8-Block.FP8 Matmul", "--gfx", "MI355X"});
  EXPECT_EQ(j.at("match"), "normalized");
  EXPECT_EQ(j.at("kernels"), json::array({"_w8a8_block_fp8_matmul"}));
  EXPECT_EQ(j.at("levers").size(), 2U);
}

// A --dtype that leaves out every candidate on the key says so, with the precisions they state:
// "no measured win" alone would read as "nothing works" (D6's four GEMM attempts are fp8).
TEST_F(DevRunsLookup, ADtypeThatLeavesEveryCandidateOutSaysSo)
{
  const auto r = run_cli({"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950",
                          "--dtype", "int4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("attempts"), 0);
  EXPECT_EQ(doc.at("notes"),
            json::parse(R"J(["--dtype int4 left out 4 candidates on the key (stated precision fp8)"])J"));
  const auto kept = run_cli({"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950",
                             "--dtype", "fp8", "--format", "json"});
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_EQ(json::parse(kept.out).at("notes"), json::array());
}

// A malformed --shape or --dtype is a usage error (exit 2) naming the value and what is
// well-formed (docs/lookup.md); a well-formed one in another spelling is read as the same.
TEST_F(DevRunsLookup, AMalformedShapeOrDtypeIsAUsageError)
{
  const auto shape = run_cli(
      {"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--shape", "16,,4096"});
  EXPECT_EQ(shape.code, 2);
  EXPECT_TRUE(shape.out.empty());
  EXPECT_NE(shape.err.find("--shape '16,,4096': expected 1 to 4 positive integers (each at most 2147483647) "
                           "separated by ',' or 'x', no spaces (M,N,K)"),
            std::string::npos)
      << shape.err;
  const auto dtype = run_cli(
      {"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--dtype", "fp 8"});
  EXPECT_EQ(dtype.code, 2);
  EXPECT_NE(dtype.err.find("--dtype 'fp 8': not a precision identifier"), std::string::npos) << dtype.err;
  const auto x = lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--shape", "16x4096x4096"});
  EXPECT_EQ(x.at("query").at("shape"), "16,4096,4096");
  EXPECT_EQ(x.at("levers").size(), 2U);
}

TEST_F(DevRunsLookup, AMissNamesTheNearestKernelsAndExitsNonZero)
{
  const auto r = run_cli({"--db", s_db.string(), "lookup", "fused_moe", "--gfx", "gfx950"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("no stored evidence for kernel 'fused_moe'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nearest kernels: fused_moe_kernel, _fwd_kernel, kentry, fused_moe_kernel_gptq_awq"),
            std::string::npos)
      << r.err;
  // A kernel known only on another gfx is not answered for this one.
  const auto other =
      run_cli({"--db", s_db.string(), "lookup", "fused_moe_kernel_gptq_awq", "--gfx", "gfx950"});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("it has evidence on gfx942"), std::string::npos) << other.err;
}

// A profile head no run tried a lever on is known, not a miss: exit 0, no lever, and where it
// stood (docs/lookup.md, "A head no run tried"). D6's kernel_unified_attention_3d: 5.37 % of GPU
// time in round 0, analytic roofline_pct 0.296 of target_eff 0.5, underperforming.
TEST_F(DevRunsLookup, AnUntriedHeadIsAnsweredWithItsVerdictNotAMiss)
{
  const json j = lookup_json({"Kernel-Unified-Attention-3D", "--gfx", "MI355X"});
  EXPECT_EQ(j.at("levers"), json::array());
  ASSERT_EQ(j.at("untried_heads").size(), 1U) << j.dump(2);
  const json& h = j.at("untried_heads").at(0);
  EXPECT_EQ(h.at("run_id"), k_d6);
  EXPECT_EQ(h.at("short_name"), "kernel_unified_attention_3d");
  EXPECT_EQ(h.at("round"), "0");
  EXPECT_EQ(h.at("op_class"), "attn");
  EXPECT_DOUBLE_EQ(h.at("pct_gpu_time").get<double>(), 5.37);
  EXPECT_DOUBLE_EQ(h.at("roofline_pct").get<double>(), 0.296);
  EXPECT_DOUBLE_EQ(h.at("target_eff").get<double>(), 0.5);
  EXPECT_EQ(h.at("headroom_class"), "underperforming");
  EXPECT_EQ(j.at("notes"), json::array({"no lever stored for kernel_unified_attention_3d on gfx950: no run "
                                        "tried one; it was a profile head in 1 run"}));
  // A kernel with attempts but no win keeps its answer (tried, no measured win), not this one.
  const auto tried =
      run_cli({"--db", s_db.string(), "lookup", "fused_moe_kernel", "--gfx", "gfx950", "--format", "table"});
  ASSERT_EQ(tried.code, 0) << tried.err;
  EXPECT_EQ(tried.out.find("no run tried one"), std::string::npos) << tried.out;
  EXPECT_NE(tried.out.find("2 attempt(s) on the key"), std::string::npos) << tried.out;
}

TEST_F(DevRunsLookup, TheDtypeFilterFollowsGeaksPrecisionRule)
{
  // D6's model dtype is fp8: float8 and fp8_w8a8 match it, bf16 does not.
  EXPECT_EQ(
      lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--dtype", "float8"}).at("levers").size(),
      2U);
  EXPECT_EQ(
      lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--dtype", "FP8-w8a8"}).at("levers").size(),
      2U);
  const auto bf16 = lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--dtype", "bf16"});
  EXPECT_TRUE(bf16.at("levers").empty());
  EXPECT_EQ(bf16.at("attempts"), 0);
  // --backend keeps the lever's own backend; --workload the runs'.
  const auto triton = lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--backend", "TRITON"});
  ASSERT_EQ(triton.at("levers").size(), 1U);
  EXPECT_EQ(triton.at("levers")[0].at("lever"), "authored triton kernel");
  EXPECT_TRUE(lookup_json({"_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--workload", "1024/2048/64"})
                  .at("levers")
                  .empty());
}

TEST_F(DevRunsLookup, TheJsonAnswerHasItsDocumentedShape)
{
  // Parsed in key order (ordered_json): the order is part of the contract.
  const auto r =
      run_cli({"--db", s_db.string(), "lookup", "_fwd_kernel", "--gfx", "gfx950", "--model", "gemma"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) {
    keys.push_back(k);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"query", "match", "kernels", "attempts", "kb_records", "levers",
                                            "notes"}));
  const auto& l = j.at("levers").at(0);
  std::vector<std::string> lever_keys;
  for (const auto& [k, v] : l.items()) {
    lever_keys.push_back(k);
  }
  EXPECT_EQ(lever_keys,
            (std::vector<std::string>{
                "lever",        "lever_key", "lever_kind",  "apply",         "isolated_speedup",
                "e2e_gain_pct", "tier",      "tier_reason", "reproductions", "content_signatures",
                "sources",      "attempts",  "freshness",   "stack",         "kb_records",
                "attestations", "retired",   "retired_why", "techniques",    "throughput_tok_s"}));
  EXPECT_EQ(l.at("lever"), "code patch (rebind)");
  EXPECT_DOUBLE_EQ(l.at("e2e_gain_pct").at("median").get<double>(), 1.2249);
  EXPECT_EQ(j.at("query").at("model"), "gemma");
  EXPECT_TRUE(j.at("query").at("workload").is_null());
}

TEST_F(DevRunsLookup, GoldenTable)
{
  const auto r = run_cli(
      {"--db", s_db.string(), "lookup", "_w8a8_block_fp8_matmul", "--gfx", "gfx950", "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  RFDB_EXPECT_GOLDEN("cli/lookup.txt", r.out);
}

} // namespace
} // namespace rfdb::test
