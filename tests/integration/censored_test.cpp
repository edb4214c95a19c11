// Issue 32, censoring: a head its run never tried, whose verdict had
// roofline_pct >= target_eff (GEAK's skip gate) or was banded saturated, is a
// right-censored observation of its class at that roofline_pct, derived at
// read time from the stored verdicts and attempts (queries/evidence_censored.sql;
// docs/estimator.md, "Censored observations").
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>

namespace rfdb::test {
namespace {

using nlohmann::json;

constexpr const char* k_gemma = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";
constexpr const char* k_qwen27 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";

void edit_json(const std::filesystem::path& file, const std::function<void(json&)>& edit)
{
  json doc = json::parse(read_bytes(file));
  edit(doc);
  write_bytes(file, doc.dump(2));
}

// Set the round-0 profile verdict of `kernel` in a copy of a dev run.
void set_verdict(const std::filesystem::path& run, const std::string& kernel, double roofline_pct,
                 const std::string& headroom_class, double attainable)
{
  edit_json(run / "profile" / "round_0" / "profile_roofline.json", [&](json& doc) {
    for (auto& e : doc.at("entries")) {
      if (e.at("short_name") == kernel) {
        e["roofline_pct"] = roofline_pct;
        e["roofline_pct_raw"] = roofline_pct;
        e["headroom_class"] = headroom_class;
        e["attainable_speedup"] = attainable;
      }
    }
  });
}

// A copy of the dev run `name` under `dir`.
std::filesystem::path copy_dev_run(const std::string& name, const std::filesystem::path& dir)
{
  const auto run = dir / name;
  std::filesystem::copy(dev_run(name), run, std::filesystem::copy_options::recursive);
  return run;
}

json query_json(const std::string& db, const std::vector<std::string>& args)
{
  const auto r = rfdb(db, args);
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out);
}

TEST(CensoredHeads, TheDevRunsHaveNone)
{
  // Their untried heads: cross_device_reduce_* (op class unknown, no verdict band), the
  // dispatch-bound Cijk_* GEMMs, Qwen3.5-27B's kernel_unified_attention_3d (underperforming,
  // 0.296 of 0.50) and gemma's fused_moe_kernel (moderate, 0.702 of 0.90): none was skipped
  // at roofline_pct >= target_eff or banded saturated, so the priors are unchanged.
  TempDir tmp;
  const auto db = (tmp / "dev.sqlite").string();
  ingest_runs(db, {dev_run(k_gemma).string(), dev_run(k_qwen27).string(),
                   dev_run("e2e_Kimi-K2.6_20260621_142207_774130_3902").string(),
                   dev_run("e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726").string()});
  EXPECT_EQ(query_json(db, {"query", "evidence_censored", "--format", "json"}), json::array());
  const auto moe = query_json(db, {"priors", "--explain", "moe", "--format", "json"});
  EXPECT_FALSE(moe.contains("censored"));
}

TEST(CensoredHeads, SkipGateAndSaturatedHeadsWithoutAttemptsByName)
{
  // gemma's fused_moe_kernel (no attempt) re-verdicted at 0.93 >= target_eff 0.90: skip gate;
  // Qwen3.5-27B's kernel_unified_attention_3d (no attempt) at 0.46 of 0.50 (0.92 >= 0.9):
  // saturated, no attempt.
  TempDir tmp;
  const auto gemma = copy_dev_run(k_gemma, tmp.path());
  set_verdict(gemma, "fused_moe_kernel", 0.93, "saturated", 1.0);
  const auto qwen = copy_dev_run(k_qwen27, tmp.path());
  set_verdict(qwen, "kernel_unified_attention_3d", 0.46, "saturated", 1.087);
  const auto db = (tmp / "censored.sqlite").string();
  ingest_runs(db, {gemma.string(), qwen.string()});

  const json rows = query_json(db, {"query", "evidence_censored", "--format", "json"});
  ASSERT_EQ(rows.size(), 2U) << rows.dump(2);
  EXPECT_EQ(rows[0].at("run_id"), k_qwen27);
  EXPECT_EQ(rows[0].at("short_name"), "kernel_unified_attention_3d");
  EXPECT_EQ(rows[0].at("op_class"), "attn");
  EXPECT_EQ(rows[0].at("censor"), "saturated_no_attempt");
  EXPECT_DOUBLE_EQ(rows[0].at("roofline_pct").get<double>(), 0.46);
  EXPECT_EQ(rows[1].at("run_id"), k_gemma);
  EXPECT_EQ(rows[1].at("short_name"), "fused_moe_kernel");
  EXPECT_EQ(rows[1].at("censor"), "skip_gate");
  EXPECT_DOUBLE_EQ(rows[1].at("roofline_pct").get<double>(), 0.93);

  // moe has no attempt in either run: the threshold is the seed 0.90, 0.93 enters alone,
  // W = 0.6 (medium), moe = (2 × 0.90 + 0.6 × 0.93) / 2.6 = 0.9069.
  const json moe = query_json(db, {"priors", "--explain", "moe", "--format", "json"});
  ASSERT_EQ(moe.at("censored").size(), 1U) << moe.dump(2);
  EXPECT_EQ(moe.at("censored")[0].at("kernel"), "fused_moe_kernel");
  EXPECT_EQ(moe.at("censored")[0].at("censored"), "skip gate");
  EXPECT_TRUE(moe.at("censored")[0].at("entered").get<bool>());
  EXPECT_DOUBLE_EQ(moe.at("censor_threshold").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(moe.at("target_eff").get<double>(), 0.9069);
  const json priors = query_json(db, {"priors", "--format", "json"});
  for (const auto& r : priors.at("priors")) {
    if (r.at("op_class") == "moe") {
      EXPECT_DOUBLE_EQ(r.at("target_eff").get<double>(), 0.9069);
      EXPECT_EQ(r.at("n"), 1);
    }
  }
  const auto text = rfdb(db, {"--format", "table", "priors", "--explain", "moe"});
  EXPECT_NE(text.out.find("censored (skip gate): e >= 0.9300"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("entered at its bound"), std::string::npos) << text.out;

  const json attn = query_json(db, {"priors", "--explain", "attn", "--format", "json"});
  ASSERT_EQ(attn.at("censored").size(), 1U) << attn.dump(2);
  EXPECT_EQ(attn.at("censored")[0].at("kernel"), "kernel_unified_attention_3d");
  EXPECT_EQ(attn.at("censored")[0].at("censored"), "saturated, no attempt");
  EXPECT_DOUBLE_EQ(attn.at("censored")[0].at("bound").get<double>(), 0.46);
  // attn has attempts in both runs: their q (0.4752, gemma's _fwd_grouped_kernel_stage1 at
  // 0.432 × 1.10) is above 0.46, so the saturated head is left out and attn is unchanged.
  EXPECT_DOUBLE_EQ(attn.at("censor_threshold").get<double>(), 0.4752);
  EXPECT_FALSE(attn.at("censored")[0].at("entered").get<bool>());
}

} // namespace
} // namespace rfdb::test
