// Issue 27's run rules end to end, on small edits of a dev run copied into a
// temporary directory (tests/fixtures/dev-runs stays as it is):
// - an authored kernel's variant (split-K, …) named by its candidate or its
//   ledger row is a lever of its own: its own What works line;
// - a config tune the Director's final environment carries (or its note
//   names) is deployed, though no overlay deployed it;
// - a post roofline of a kernel with two deployed levers (a stack) gives
//   neither its efficiency, and each says so.
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// D6: an authored Triton GEMM deployed at +15.81 % under a 1.1538× Director win.
const std::string k_d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
const std::string k_gemm = "_w8a8_block_fp8_matmul";
// D9: the int4 MoE config tune (env VLLM_TUNED_CONFIG_FOLDER) at +16.05 %, 1.1641× Director win,
// with a post roofline (80.3 %) of its kernel.
const std::string k_d9 = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
const std::string k_moe = "fused_moe_kernel_gptq_awq";
const std::string k_tune = "cand_fused_moe_kernel_gptq_awq";

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

fs::path copy_dev_run(const std::string& name, const fs::path& dir)
{
  fs::copy(fixtures_dir() / "dev-runs" / name, dir / name, fs::copy_options::recursive);
  return dir / name;
}

json read_json(const fs::path& p)
{
  return json::parse(read_bytes(p));
}

void write_json(const fs::path& p, const json& j)
{
  fs::create_directories(p.parent_path());
  write_bytes(p, j.dump(2) + "\n");
}

// The bullet lines of the playbook's "What works" section.
std::vector<std::string> what_works(const fs::path& db, const fs::path& out)
{
  const auto r = run_cli({"--db", db.string(), "report", "-o", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string md = read_bytes(out);
  const std::size_t from = md.find("\n## What works\n");
  EXPECT_NE(from, std::string::npos);
  const std::size_t to = md.find("\n## ", from + 1);
  const std::string works = md.substr(from, to == std::string::npos ? std::string::npos : to - from);
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while ((pos = works.find("\n- ", pos)) != std::string::npos) {
    const std::size_t end = works.find('\n', pos + 1);
    lines.push_back(works.substr(pos + 1, end - pos - 1));
    pos = end;
  }
  return lines;
}

// The one line holding `part` (fails unless exactly one does).
std::string line_with(const std::vector<std::string>& lines, const std::string& part)
{
  std::vector<std::string> hits;
  for (const auto& l : lines) {
    if (contains(l, part)) {
      hits.push_back(l);
    }
  }
  EXPECT_EQ(hits.size(), 1U) << part;
  return hits.empty() ? std::string() : hits.front();
}

std::string attempt_value(const fs::path& db, const std::string& candidate, const std::string& column)
{
  return query_value(db, "SELECT " + column + " FROM attempts WHERE candidate = '" + candidate + "'");
}

// D9 with its tune deployed by env only: no accepted_overlay on the
// candidate, no accepted list citing it; the Director's final_env still
// carries VLLM_TUNED_CONFIG_FOLDER.
fs::path d9_tune_by_env_only(const fs::path& dir)
{
  const fs::path run = copy_dev_run(k_d9, dir);
  const fs::path integrate = run / "overlay" / k_tune / "integrate_result.json";
  json j = read_json(integrate);
  j["accepted_overlay"] = "";
  write_json(integrate, j);
  json wf = read_json(run / "workflow_return.json");
  wf["accepted_heads"] = json::array();
  wf["state"]["accepted_heads"] = json::array();
  write_json(run / "workflow_return.json", wf);
  return run;
}

std::string ingest_one(const fs::path& db, const fs::path& run)
{
  const auto r = run_cli({"--db", db.string(), "ingest", "-q", run.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return r.err;
}

json show_attempt(const fs::path& db, const std::string& run, const std::string& key)
{
  const auto r = run_cli({"--db", db.string(), "show", run, "--attempt", key, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out);
}

} // namespace

// The siblings: an authored Triton GEMM (deployed) and its split-K
// variant, a separate candidate that also says backend triton, accepted but
// not adopted (ledger direction `…:triton_splitk`). They used to share one
// ★★★ line with e2e "+13.65 % to +15.81 %".
TEST(RunRules, ASplitKSiblingOfAnAuthoredKernelGetsItsOwnWhatWorksLine)
{
  TempDir tmp;
  const fs::path run = copy_dev_run(k_d6, tmp.path());
  const std::string sibling = "cand_" + k_gemm + "_triton_splitk";
  json integrate = read_json(run / "overlay" / ("cand_" + k_gemm + "_triton") / "integrate_result.json");
  integrate["isolated_speedup"] = 1.6797;
  integrate["e2e_delta_pct"] = 13.65;
  integrate["e2e_throughput_tok_s"] = 3844.0;
  integrate["cand_med"] = 3844.0;
  integrate["accepted_overlay"] = "";
  integrate["reason"] = "accepted: +13.65% non-overlapping (not adopted: the split-N kernel is deployed)";
  write_json(run / "overlay" / sibling / "integrate_result.json", integrate);
  json wf = read_json(run / "workflow_return.json");
  wf["state"]["history"]["ledger"].push_back({{"direction", k_gemm + ":triton_splitk"},
                                              {"isolated_speedup", 1.6797},
                                              {"e2e_delta_pct", 13.65},
                                              {"verdict", "candidate_passed"},
                                              {"lesson", "authored triton: accepted (not adopted)"}});
  write_json(run / "workflow_return.json", wf);

  const fs::path db = tmp / "rfdb.sqlite";
  const auto r = run_cli({"--db", db.string(), "ingest", "-q", run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(attempt_value(db, sibling, "lever"), "authored triton kernel (split-K)");
  EXPECT_EQ(attempt_value(db, sibling, "deployed"), "0");
  EXPECT_EQ(attempt_value(db, "cand_" + k_gemm + "_triton", "lever"), "authored triton kernel");
  // The split-K ledger row is the sibling's, not the deployed kernel's.
  EXPECT_EQ(
      query_value(db, "SELECT group_concat(src.json_pointer, ' ') FROM attempt_sources src JOIN attempts a "
                      "USING (attempt_id) JOIN sources s USING (source_id) WHERE a.candidate = '" +
                          sibling + "' AND s.kind = 'workflow_return'"),
      "/state/history/ledger/6");

  const auto lines = what_works(db, tmp / "playbook.md");
  const std::string plain = line_with(lines, "- \u2605\u2605\u2605 authored triton kernel \u2014");
  EXPECT_TRUE(
      contains(plain, "isolated 1.899\u00d7; e2e +15.81 % (beyond the run's measured spread 0.81 %);"))
      << plain;
  EXPECT_TRUE(contains(plain, "`" + k_d6 + "#cand:cand_" + k_gemm + "_triton`")) << plain;
  EXPECT_FALSE(contains(plain, sibling)) << plain;
  const std::string splitk = line_with(lines, "authored triton kernel (split-K) \u2014");
  // One clean run, not deployed: the Director's win does not include it.
  EXPECT_TRUE(splitk.starts_with("- \u2605\u2605 authored triton kernel (split-K) \u2014")) << splitk;
  EXPECT_TRUE(
      contains(splitk, "isolated 1.680\u00d7; e2e +13.65 % (beyond the run's measured spread 0.81 %);"))
      << splitk;
  EXPECT_TRUE(contains(splitk, "`" + k_d6 + "#cand:" + sibling + "`")) << splitk;
  EXPECT_EQ(run_cli({"--db", db.string(), "check"}).code, 0);
}

// The Mixtral case of the issue on D9: the Director's final_env carries the
// tune's VLLM_TUNED_CONFIG_FOLDER though no overlay deployed it; it is
// deployed, so the won validation includes it: ★★★.
TEST(RunRules, AConfigTuneTheFinalEnvironmentCarriesIsDeployed)
{
  TempDir tmp;
  const fs::path run = d9_tune_by_env_only(tmp.path());
  const json director = read_json(run / "director_e2e_validation.json");
  ASSERT_TRUE(contains(director.at("serving_config").at("final_env").get<std::string>(),
                       "VLLM_TUNED_CONFIG_FOLDER="));
  const fs::path db = tmp / "rfdb.sqlite";
  ingest_one(db, run);
  const json a = show_attempt(db, k_d9, "cand:" + k_tune);
  EXPECT_TRUE(a.at("deployed").get<bool>()) << a.dump(1);
  // The only deployed attempt on its kernel: the post roofline is its own.
  EXPECT_TRUE(a.at("post_measured").get<bool>());
  EXPECT_NEAR(a.at("post_efficiency").get<double>(), 0.803, 1e-9);
  EXPECT_TRUE(a.at("post_note").is_null());
  EXPECT_EQ(a.at("validation").at("class"), "win");
  const std::string line = line_with(what_works(db, tmp / "playbook.md"), "VLLM_TUNED_CONFIG_FOLDER");
  EXPECT_TRUE(contains(line,
                       "- \u2605\u2605\u2605 env VLLM_TUNED_CONFIG_FOLDER=moe_tuned_int4 \u2014 verified "
                       "end-to-end win (Director 1.1641\u00d7)"))
      << line;
  EXPECT_EQ(run_cli({"--db", db.string(), "check"}).code, 0);
}

// The same run with a final environment that does not carry the tune: not
// deployed, ★★ (one clean run); a Director note naming the tune ("tuned MoE
// config", the moe_config_tune lever) deploys it again.
TEST(RunRules, WithoutTheTuneInTheFinalEnvironmentOnlyTheNoteNamingItDeploysIt)
{
  TempDir tmp;
  const fs::path run = d9_tune_by_env_only(tmp.path());
  json director = read_json(run / "director_e2e_validation.json");
  director["serving_config"]["final_env"] = "VLLM_ROCM_USE_AITER=0";
  write_json(run / "director_e2e_validation.json", director);
  const fs::path db = tmp / "rfdb.sqlite";
  ingest_one(db, run);
  json a = show_attempt(db, k_d9, "cand:" + k_tune);
  EXPECT_FALSE(a.at("deployed").get<bool>());
  EXPECT_FALSE(a.at("post_measured").get<bool>());
  std::string line = line_with(what_works(db, tmp / "playbook.md"), "VLLM_TUNED_CONFIG_FOLDER");
  EXPECT_TRUE(
      line.starts_with("- \u2605\u2605 env VLLM_TUNED_CONFIG_FOLDER=moe_tuned_int4 \u2014 one clean run"))
      << line;

  director["arbitration_note"] =
      "same-session 2-block A/B; stack = tuned MoE config + --max-num-batched-tokens 16384";
  write_json(run / "director_e2e_validation.json", director);
  ingest_one(db, run);
  a = show_attempt(db, k_d9, "cand:" + k_tune);
  EXPECT_TRUE(a.at("deployed").get<bool>());
  line = line_with(what_works(db, tmp / "playbook.md"), "VLLM_TUNED_CONFIG_FOLDER");
  EXPECT_TRUE(line.starts_with("- \u2605\u2605\u2605 env VLLM_TUNED_CONFIG_FOLDER=moe_tuned_int4")) << line;
}

// A stack on one kernel: a whole-file overlay the final overlay deployed and
// the tune the final environment carries. The post roofline (80.3 %)
// measured both together: neither gets it as its `e`; both say so.
TEST(RunRules, APostRooflineOfAStackOfTwoDeployedLeversCreditsNeither)
{
  TempDir tmp;
  const fs::path run = d9_tune_by_env_only(tmp.path());
  const std::string patch = k_tune + "_wholefile";
  json j = read_json(run / "overlay" / k_tune / "integrate_result.json");
  j["isolated_speedup"] = 1.2104;
  j["e2e_delta_pct"] = 3.412;
  j["winner_kind"] = "patch";
  j["backend"] = "triton";
  j.erase("apply_env");
  j["accepted_env"] = "";
  j["accepted_overlay"] = "/wekafs/exp/geak/" + k_d9 + "/final/overlay";
  j["reason"] = "accepted: +3.412% non-overlapping; whole-file overlay of fused_moe.py";
  write_json(run / "overlay" / patch / "integrate_result.json", j);
  const fs::path db = tmp / "rfdb.sqlite";
  ingest_one(db, run);

  const json tune = show_attempt(db, k_d9, "cand:" + k_tune);
  const json file = show_attempt(db, k_d9, "cand:" + patch);
  EXPECT_EQ(file.at("lever"), "code patch (triton, whole-file)");
  for (const json* a : {&tune, &file}) {
    EXPECT_TRUE(a->at("deployed").get<bool>()) << a->dump(1);
    EXPECT_TRUE(a->at("post_measured").get<bool>()) << a->dump(1);
    EXPECT_TRUE(a->at("post_efficiency").is_null()) << a->dump(1);
    EXPECT_EQ(a->at("post_note"), "post measured a stack of 2 levers") << a->dump(1);
    bool cites_post = false;
    for (const auto& s : a->at("sources")) {
      cites_post = cites_post || s.at("path") == "kernels/" + k_moe + "_task/roofline/post_roofline.json";
    }
    EXPECT_TRUE(cites_post) << a->dump(1);
  }
  // No post efficiency reaches calibration from this kernel.
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM observations WHERE post_efficiency IS NOT NULL"), "0");
  EXPECT_EQ(run_cli({"--db", db.string(), "check"}).code, 0);
}

} // namespace rfdb::test
