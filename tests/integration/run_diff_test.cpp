// `rfdb diff RUN_A RUN_B` (issue 33; report/run_diff.hpp, docs/json.md) on the dev runs
// (tests/fixtures/dev-runs): D7 against D6 as a golden table and as JSON, D6 against a re-run of
// itself with a changed stack, a head that fell under the head threshold and an attempt whose
// gate changed, a run against itself, and the errors `rfdb show` gives.
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
// D6 again two weeks later: triton 3.6.0 and no flydsl in env_info.txt; the attention head
// kernel_unified_attention_3d at 4.12 % (roofline_pct 0.35) instead of 5.37 % (0.296); the CK
// tuned-CSV candidate rejected at its gate instead of accepted (same numbers).
const std::string k_rerun = "e2e_Qwen3.5-27B-FP8_20260905_090000_1753320_20999";
const std::string k_ck_tuned_lever = "backend ck (env VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_LINEAR=1 "
                                     "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=a8w8_blockscale_tp4.csv)";

void replace_in(const fs::path& file, const std::string& from, const std::string& to)
{
  std::string text = read_bytes(file);
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << file << " lacks " << from;
  text.replace(at, from.size(), to);
  write_bytes(file, text);
}

class RunDiff : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "dev.sqlite";
    const fs::path rerun = *s_tmp / k_rerun;
    fs::copy(dev_run(k_d6), rerun, fs::copy_options::recursive);
    replace_in(rerun / "env_info.txt", "triton 3.5.1\nflydsl 0.2.1\n", "triton 3.6.0\n");
    const fs::path roofline = rerun / "profile/round_0/profile_roofline.json";
    const std::string entry = R"("short_name": "kernel_unified_attention_3d",
      "pct_gpu_time": 5.37,)";
    replace_in(roofline, entry, R"("short_name": "kernel_unified_attention_3d",
      "pct_gpu_time": 4.12,)");
    replace_in(roofline, R"("roofline_pct": 0.296,
      "roofline_pct_raw": 0.296,)",
               R"("roofline_pct": 0.35,
      "roofline_pct_raw": 0.35,)");
    replace_in(rerun / "overlay/cand__w8a8_block_fp8_matmul_ck_tuned/integrate_result.json",
               R"("gate": "accepted")", R"("gate": "rejected")");
    // The re-run repeats D6's measured attempts: ingest takes it as a separate run only when told.
    const auto r = run_cli({"--db", s_db.string(), "ingest", "-q", "--allow-copy", dev_run(k_d6).string(),
                            dev_run(k_d7).string(), rerun.string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }

  static json diff_json(std::vector<std::string> args)
  {
    args.insert(args.begin(), {"--db", s_db.string(), "diff"});
    const auto r = run_cli(args); // stdout is not a terminal: JSON
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json();
  }

  static TempDir* s_tmp;
  static fs::path s_db;
};

TempDir* RunDiff::s_tmp = nullptr;
fs::path RunDiff::s_db;

// The one element of `items` whose `key` is `value`.
const json& item(const json& items, const std::string& key, const std::string& value)
{
  for (const auto& x : items) {
    if (x.at(key) == value) {
      return x;
    }
  }
  ADD_FAILURE() << key << " = " << value << " not in " << items.dump(1);
  static const json none;
  return none;
}

} // namespace

// D7 (Qwen3.5-122B, 2026-08-19) against D6 (Qwen3.5-27B, 2026-08-22): both gfx950, vLLM,
// 1024/1024/64; different models, stacks, heads and attempts.
TEST_F(RunDiff, TwoDevRunsAsATable)
{
  const auto r = run_cli({"--db", s_db.string(), "diff", "e2e_Qwen3.5-122B", k_d6, "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  RFDB_EXPECT_GOLDEN("cli/diff_dev_runs.txt", r.out);
}

TEST_F(RunDiff, TwoDevRunsAsJson)
{
  const json d = diff_json({k_d7, k_d6});
  EXPECT_EQ(d.at("a"), json::parse(R"({"run_id": ")" + k_d7 + R"(", "run_date": "2026-08-19"})"));
  EXPECT_EQ(d.at("b").at("run_id"), k_d6);
  // 5 identity fields, 3 packages, tp, 7 heads, 12 attempts, 5 throughput and 2 validation fields.
  EXPECT_EQ(d.at("differences"), 35);
  EXPECT_EQ(item(d.at("identity"), "field", "backend_version"),
            json::parse(R"({"field": "backend_version", "a": "0.26.0.dev412+gb81a6f0.rocm712",
                            "b": "0.26.1.dev37+g9c1d2e4.rocm712", "state": "changed"})"));
  // Only the differences by default: gfx, backend, isl/osl/conc are equal.
  for (const char* section : {"identity", "workload"}) {
    for (const auto& f : d.at(section)) {
      EXPECT_EQ(f.at("state"), "changed") << f.dump();
    }
  }
  const json& vllm = item(d.at("stack"), "package", "vllm");
  EXPECT_EQ(vllm.at("state"), "changed");
  EXPECT_EQ(vllm.at("a").at("raw"), "0.26.0.dev412+gb81a6f0.rocm712");
  EXPECT_EQ(vllm.at("b").at("release"), "0.26.1");
  const json& flydsl = item(d.at("stack"), "package", "flydsl");
  EXPECT_EQ(flydsl.at("state"), "only_b");
  EXPECT_TRUE(flydsl.at("a").is_null());
  EXPECT_EQ(flydsl.at("b").at("raw"), "0.2.1");
  EXPECT_EQ(item(d.at("workload"), "field", "tp"),
            json::parse(R"({"field": "tp", "a": 2, "b": 4, "state": "changed"})"));

  // The gated-delta head is a head of both runs: D7's round-1 analytic verdict (6.25 %, no band)
  // against D6's usable measured baseline (6.84 %, roofline_pct 0.123, attainable 0.5 / 0.123 =
  // 4.065; its expected gain 6.84 x (1 - 1/attainable) = 6.84 x (1 - 0.123 / 0.5) = 5.157 %).
  const json& gated = item(d.at("heads"), "kernel", "fused_recurrent_gated_delta_rule_fwd_kernel");
  EXPECT_EQ(gated.at("state"), "changed");
  EXPECT_EQ(gated.at("changes"),
            json::parse(R"(["pct_gpu_time", "source", "roofline_pct", "attainable_speedup",
                                                  "expected_e2e_gain_pct", "headroom_class", "bound_type"])"));
  EXPECT_EQ(gated.at("a").at("round"), "1");
  EXPECT_DOUBLE_EQ(gated.at("a").at("pct_gpu_time").get<double>(), 6.25);
  EXPECT_DOUBLE_EQ(gated.at("b").at("pct_gpu_time").get<double>(), 6.84);
  EXPECT_EQ(gated.at("b").at("source"), "measured");
  EXPECT_DOUBLE_EQ(gated.at("b").at("roofline_pct").get<double>(), 0.123);
  EXPECT_NEAR(gated.at("b").at("expected_e2e_gain_pct").get<double>(), 6.84 * (1 - 0.123 / 0.5), 1e-9);
  EXPECT_EQ(gated.at("a").at("headroom_class"), "unknown");
  EXPECT_EQ(gated.at("b").at("headroom_class"), "underperforming");
  EXPECT_EQ(item(d.at("heads"), "kernel", "kentry").at("state"), "only_a");
  EXPECT_EQ(item(d.at("heads"), "kernel", "_w8a8_block_fp8_matmul").at("state"), "only_b");

  // Both runs tried the gated-delta kernel without measuring it (a ledger dead end): matched by
  // lever key, the same outcome, so not listed.
  EXPECT_EQ(d.at("attempts").size(), 12U);
  for (const auto& a : d.at("attempts")) {
    EXPECT_NE(a.at("kernel"), "fused_recurrent_gated_delta_rule_fwd_kernel") << a.dump();
  }
  const json all = diff_json({k_d7, k_d6, "--all"});
  const json& dead_end = item(all.at("attempts"), "kernel", "fused_recurrent_gated_delta_rule_fwd_kernel");
  EXPECT_EQ(dead_end.at("state"), "same");
  EXPECT_EQ(dead_end.at("lever_key"), "direction fused recurrent gated delta rule fwd kernel");
  EXPECT_EQ(dead_end.at("a").at("verdict"), "dead_end");
  EXPECT_EQ(dead_end.at("b").at("measured"), false);
  EXPECT_EQ(item(all.at("identity"), "field", "gfx"),
            json::parse(R"({"field": "gfx", "a": "gfx950", "b": "gfx950", "state": "same"})"));
  EXPECT_EQ(all.at("differences"), 35);
  EXPECT_EQ(all.at("tags"), json::array());

  EXPECT_EQ(item(d.at("validation"), "field", "validation_class"),
            json::parse(R"({"field": "validation_class", "a": "no_win", "b": "win", "state": "changed"})"));
  EXPECT_DOUBLE_EQ(item(d.at("throughput"), "field", "measured_spread_pct").at("a").get<double>(), 0.94);
}

// D6 against its re-run: what changed is exactly what the copy edited.
TEST_F(RunDiff, ARerunShowsTheStackHeadAndAttemptThatChanged)
{
  const json d = diff_json({k_d6, k_rerun});
  const json& triton = item(d.at("stack"), "package", "triton");
  EXPECT_EQ(triton.at("state"), "changed");
  EXPECT_EQ(triton.at("a").at("raw"), "3.5.1");
  EXPECT_EQ(triton.at("b").at("raw"), "3.6.0");
  EXPECT_EQ(item(d.at("stack"), "package", "flydsl").at("state"), "only_a");
  EXPECT_EQ(d.at("stack").size(), 2U);

  // A head on D6 at 5.37 %, under the 5 % threshold on the re-run: still matched, a change.
  ASSERT_EQ(d.at("heads").size(), 1U);
  const json& attn = d.at("heads").at(0);
  EXPECT_EQ(attn.at("kernel"), "kernel_unified_attention_3d");
  EXPECT_EQ(attn.at("state"), "changed");
  EXPECT_EQ(attn.at("changes"), json::parse(R"(["pct_gpu_time", "roofline_pct"])"));
  EXPECT_DOUBLE_EQ(attn.at("a").at("pct_gpu_time").get<double>(), 5.37);
  EXPECT_DOUBLE_EQ(attn.at("b").at("pct_gpu_time").get<double>(), 4.12);
  EXPECT_DOUBLE_EQ(attn.at("b").at("roofline_pct").get<double>(), 0.35);

  // The CK tuned-CSV attempt matched by its lever key; only its gate changed.
  ASSERT_EQ(d.at("attempts").size(), 1U);
  const json& ck = d.at("attempts").at(0);
  EXPECT_EQ(ck.at("kernel"), "_w8a8_block_fp8_matmul");
  EXPECT_EQ(ck.at("state"), "changed");
  EXPECT_EQ(ck.at("changes"), json::parse(R"(["gate"])"));
  EXPECT_EQ(ck.at("a").at("lever"), k_ck_tuned_lever);
  EXPECT_EQ(ck.at("a").at("attempt"), ck.at("b").at("attempt"));
  EXPECT_EQ(ck.at("a").at("gate"), "accepted");
  EXPECT_EQ(ck.at("b").at("gate"), "rejected");
  EXPECT_DOUBLE_EQ(ck.at("b").at("isolated_speedup").get<double>(), 1.523);
  EXPECT_DOUBLE_EQ(ck.at("b").at("e2e_delta_pct").get<double>(), 6.46);

  EXPECT_EQ(d.at("workload"), json::array());
  EXPECT_EQ(d.at("throughput"), json::array());
  // run_id and run_date, the triton and flydsl packages, the head and the attempt.
  EXPECT_EQ(d.at("identity").size(), 2U);
  EXPECT_EQ(d.at("differences"), 6);
}

TEST_F(RunDiff, ARunAgainstItselfIsAnEmptyDiff)
{
  const json d = diff_json({k_d6, "e2e_Qwen3.5-27B-FP8_20260822"});
  EXPECT_EQ(d.at("differences"), 0);
  for (const char* section :
       {"identity", "stack", "workload", "heads", "attempts", "throughput", "validation", "tags"}) {
    EXPECT_EQ(d.at(section), json::array()) << section;
  }
  const auto table = run_cli({"--db", s_db.string(), "diff", k_d6, k_d6, "--format", "table"});
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out, "a  " + k_d6 + " (2026-08-22)\nb  " + k_d6 + " (2026-08-22)\nno differences\n");
  // --all lists every item, each the same.
  const json all = diff_json({k_d6, k_d6, "--all"});
  EXPECT_EQ(all.at("attempts").size(), 8U);
  EXPECT_EQ(all.at("heads").size(), 4U);
  for (const auto& a : all.at("attempts")) {
    EXPECT_EQ(a.at("state"), "same") << a.dump();
  }
}

// Tags (rfdb tag): one field per key either run carries; by default only those that differ.
TEST_F(RunDiff, TagsAreComparedKeyByKey)
{
  TempDir tmp;
  const fs::path db = tmp / "tagged.sqlite";
  fs::copy_file(s_db, db);
  ASSERT_EQ(run_cli({"--db", db.string(), "tag", k_d6, "quant=fp8", "tp=8"}).code, 0);
  ASSERT_EQ(run_cli({"--db", db.string(), "tag", k_rerun, "quant=fp8", "tp=4", "note=rerun"}).code, 0);
  const auto r = run_cli({"--db", db.string(), "diff", k_d6, k_rerun});
  ASSERT_EQ(r.code, 0) << r.err;
  const json d = json::parse(r.out);
  EXPECT_EQ(d.at("tags"), json::parse(R"([{"field": "note", "a": null, "b": "rerun", "state": "changed"},
                                          {"field": "tp", "a": "8", "b": "4", "state": "changed"}])"));
  const auto all = run_cli({"--db", db.string(), "diff", k_d6, k_rerun, "--all"});
  ASSERT_EQ(all.code, 0) << all.err;
  const json every = json::parse(all.out).at("tags");
  ASSERT_EQ(every.size(), 3U) << every.dump();
  EXPECT_EQ(every.at(1), json::parse(R"({"field": "quant", "a": "fp8", "b": "fp8", "state": "same"})"));
  const auto table = run_cli({"--db", db.string(), "diff", k_d6, k_rerun, "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("tags"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("rerun"), std::string::npos) << table.out;
}

// A table on a terminal, JSON in a pipe (docs/README.md, "In scripts"); --format chooses.
TEST_F(RunDiff, TheFormatFollowsTheTerminal)
{
  CliEnv terminal;
  terminal.terminal = true;
  const auto table = run_cli_with({"--db", s_db.string(), "diff", k_d6, k_rerun}, terminal);
  EXPECT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(
      table.out.rfind("a  " + k_d6 + " (2026-08-22)\nb  " + k_rerun + " (2026-09-05)\n6 differences\n", 0),
      0U)
      << table.out;
  EXPECT_NE(table.out.find("accepted → rejected"), std::string::npos) << table.out;
  const auto json_out =
      run_cli_with({"--db", s_db.string(), "diff", k_d6, k_rerun, "--format", "json"}, terminal);
  EXPECT_EQ(json::parse(json_out.out).at("differences"), 6);
}

// RUN is taken as `rfdb show` takes it, with its errors: unknown (exit 1), ambiguous (exit 2).
TEST_F(RunDiff, RunsAreResolvedAsShowResolvesThem)
{
  const auto show = run_cli({"--db", s_db.string(), "show", "e2e_nope"});
  const auto unknown = run_cli({"--db", s_db.string(), "diff", k_d6, "e2e_nope"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(show.code, 1);
  EXPECT_EQ(unknown.out, "");
  std::string expected = show.err;
  expected.replace(expected.find("show:"), 5, "diff:");
  EXPECT_EQ(unknown.err, expected);
  const auto ambiguous = run_cli({"--db", s_db.string(), "diff", "e2e_Qwen3.5-27B", k_d7});
  EXPECT_EQ(ambiguous.code, 2);
  EXPECT_NE(ambiguous.err.find("run id prefix 'e2e_Qwen3.5-27B' is ambiguous"), std::string::npos)
      << ambiguous.err;
  const auto missing = run_cli({"--db", s_db.string(), "diff", k_d6});
  EXPECT_EQ(missing.code, 2) << missing.err;
}

} // namespace rfdb::test
