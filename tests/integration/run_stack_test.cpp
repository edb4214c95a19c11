// The stack of a run (issue 30): what ingest stores for the four dev runs
// (tests/fixtures/dev-runs: env_report.json, env_info.txt, roofline-v1
// tool_version, the install record), `runs --stack` (bare: print; with a
// spec: filter), `show`'s stack, `priors --stack`, re-ingest and the
// difference between two runs' stacks (store::stack_changes).
#include "support/helpers.hpp"

#include "store/database.hpp"
#include "store/stack.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace rfdb::test {
namespace {

using nlohmann::json;

const std::string k_d6 = "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931";
const std::string k_d7 = "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726";
const std::string k_d8 = "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817";
const std::string k_d9 = "e2e_Kimi-K2.6_20260621_142207_774130_3902";

std::filesystem::path dev_run(const std::string& run)
{
  return fixtures_dir() / "dev-runs" / run;
}

class RunStack : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir;
    s_db = *s_tmp / "dev.sqlite";
    for (const auto& run : {k_d6, k_d7, k_d8, k_d9}) {
      const auto r = run_cli({"--db", s_db.string(), "ingest", dev_run(run).string()});
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }

  static json cli_json(std::vector<std::string> args)
  {
    args.insert(args.begin(), {"--db", s_db.string()});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json();
  }
  static json stack_of(const std::string& run)
  {
    return cli_json({"show", run, "--format", "json"}).at("stack");
  }
  static std::vector<std::string> run_ids(const json& runs)
  {
    std::vector<std::string> out;
    for (const auto& r : runs) {
      out.push_back(r.at("run_id").get<std::string>());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  static std::vector<std::string> sorted(std::vector<std::string> v)
  {
    std::sort(v.begin(), v.end());
    return v;
  }

  static TempDir* s_tmp;
  static std::filesystem::path s_db;
};
TempDir* RunStack::s_tmp = nullptr;
std::filesystem::path RunStack::s_db;

std::set<std::string> packages(const json& stack)
{
  std::set<std::string> out;
  for (const auto& [k, v] : stack.items()) {
    out.insert(k);
  }
  return out;
}

void expect_row(const json& stack, const std::string& package, const std::string& raw, const json& release,
                const std::string& source, const json& via = nullptr)
{
  ASSERT_TRUE(stack.contains(package)) << package << " in " << stack.dump();
  const auto& r = stack.at(package);
  EXPECT_EQ(r.at("raw"), raw) << package;
  EXPECT_EQ(r.at("release"), release) << package;
  EXPECT_EQ(r.at("source"), source) << package;
  EXPECT_EQ(r.at("via"), via) << package;
}

TEST_F(RunStack, D6FromEnvReportEnvInfoAndTheRooflineTool)
{
  const json s = stack_of(k_d6);
  EXPECT_EQ(packages(s),
            (std::set<std::string>{"aiter", "flydsl", "rocm", "rocprof-compute", "torch", "triton", "vllm"}));
  expect_row(s, "vllm", "0.26.1.dev37+g9c1d2e4.rocm712", "0.26.1", "env_report.json");
  expect_row(s, "torch", "2.10.0+rocm7.1.2", "2.10.0", "env_info.txt");
  expect_row(s, "rocm", "2.10.0+rocm7.1.2", "7.1.2", "env_info.txt", "torch");
  expect_row(s, "aiter", "0.1.8.dev3+g77e0c1a", "0.1.8", "env_info.txt");
  expect_row(s, "triton", "3.5.1", "3.5.1", "env_info.txt");
  expect_row(s, "flydsl", "0.2.1", "0.2.1", "env_info.txt");
  expect_row(s, "rocprof-compute", "rocprofiler-compute version: 3.1.1", "3.1.1",
             "kernels/_w8a8_block_fp8_matmul_task/roofline/baseline_roofline.json");
}

TEST_F(RunStack, D7AndD9ReadRocmFromTorch)
{
  const json d7 = stack_of(k_d7);
  EXPECT_EQ(packages(d7),
            (std::set<std::string>{"aiter", "rocm", "rocprof-compute", "torch", "triton", "vllm"}));
  expect_row(d7, "vllm", "0.26.0.dev412+gb81a6f0.rocm712", "0.26.0", "env_report.json");
  expect_row(d7, "aiter", "0.1.8.dev1+g2f4b9d0", "0.1.8", "env_info.txt");
  expect_row(d7, "rocm", "2.10.0+rocm7.1.2", "7.1.2", "env_info.txt", "torch");
  const json d9 = stack_of(k_d9);
  EXPECT_EQ(packages(d9),
            (std::set<std::string>{"aiter", "rocm", "rocprof-compute", "torch", "triton", "vllm"}));
  expect_row(d9, "vllm", "0.24.1.dev9+g0d3e7a1.rocm702", "0.24.1", "env_report.json");
  expect_row(d9, "rocm", "2.9.0+rocm7.0.2", "7.0.2", "env_info.txt", "torch");
  expect_row(d9, "aiter", "0.1.5.post2", "0.1.5", "env_info.txt");
  expect_row(d9, "triton", "3.4.0", "3.4.0", "env_info.txt");
}

TEST_F(RunStack, D8IsSglangWithEveryPackageLine)
{
  const json s = stack_of(k_d8);
  EXPECT_EQ(packages(s), (std::set<std::string>{"aiter", "rocm", "rocprof-compute", "sgl-kernel", "sglang",
                                                "torch", "triton"}));
  expect_row(s, "sglang", "0.5.17", "0.5.17", "env_report.json");
  expect_row(s, "sgl-kernel", "0.3.21", "0.3.21", "env_info.txt");
  expect_row(s, "rocm", "2.9.1+rocm7.1.1", "7.1.1", "env_info.txt", "torch");
  expect_row(s, "aiter", "0.1.7.post1", "0.1.7", "env_info.txt");
  // The decode baseline had no profiler (tool.version "not found"): the first document with a version names
  // it.
  expect_row(s, "rocprof-compute", "rocprofiler-compute version: 3.1.1", "3.1.1",
             "kernels/_fwd_grouped_kernel_stage1_task/roofline/post_roofline.json");
}

TEST_F(RunStack, RunsStackBarePrintsTheColumns)
{
  const json runs = cli_json({"runs", "--stack", "--format", "json"});
  ASSERT_EQ(runs.size(), 4U);
  for (const auto& r : runs) {
    ASSERT_TRUE(r.contains("stack")) << r.at("run_id");
    EXPECT_TRUE(r.at("stack").contains("rocm")) << r.at("run_id");
  }
  // Without --stack the runs list keeps its keys.
  for (const auto& r : cli_json({"runs", "--format", "json"})) {
    EXPECT_FALSE(r.contains("stack"));
  }
  const auto table = run_cli({"--db", s_db.string(), "runs", "--stack", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("backend_version"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("rocprof-compute"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("0.26.1.dev37"), std::string::npos) << table.out; // public version
  EXPECT_EQ(table.out.find("g9c1d2e4"), std::string::npos) << table.out;     // local cut in the table
  EXPECT_NE(table.out.find("7.0.2"), std::string::npos) << table.out;        // D9's rocm
  EXPECT_EQ(table.out.find("verdicts"), std::string::npos) << table.out;     // stack columns instead
}

TEST_F(RunStack, RunsStackSpecFilters)
{
  auto ids = [&](std::vector<std::string> specs) {
    std::vector<std::string> args{"runs", "--format", "json"};
    for (const auto& s : specs) {
      args.push_back("--stack");
      args.push_back(s);
    }
    return run_ids(cli_json(args));
  };
  // A plain release compares on the release part: D7's 0.26.0.dev412 is a
  // 0.26.0 build; a dev spec compares in full PEP 440 order.
  EXPECT_EQ(ids({"vllm>=0.26"}), sorted({k_d6, k_d7}));
  EXPECT_EQ(ids({"vllm>=0.26.0.dev0"}), sorted({k_d6, k_d7}));
  EXPECT_EQ(ids({"vllm>=0.26.0.dev413"}), (std::vector<std::string>{k_d6}));
  EXPECT_EQ(ids({"vllm==0.26.*"}), sorted({k_d6, k_d7}));
  EXPECT_EQ(ids({"vllm<0.26"}), (std::vector<std::string>{k_d9}));
  EXPECT_EQ(ids({"torch<2.10"}), sorted({k_d8, k_d9}));
  EXPECT_EQ(ids({"rocm==7.1.2"}), sorted({k_d6, k_d7}));
  EXPECT_EQ(ids({"rocm==7.1.2", "flydsl>=0.2"}), (std::vector<std::string>{k_d6})); // all must hold
  EXPECT_EQ(ids({"SGLang>=0.5"}), (std::vector<std::string>{k_d8}));                // any case
  EXPECT_EQ(ids({"sgl_kernel==0.3.21"}), (std::vector<std::string>{k_d8}));         // _ is -
  EXPECT_EQ(ids({"backend>=0.25"}), sorted({k_d6, k_d7}));                          // the run's own backend
  EXPECT_EQ(ids({"aiter!=0.1.8"}), sorted({k_d8, k_d9})); // 0.1.8.dev3 and .dev1 are 0.1.8 builds
  EXPECT_EQ(ids({"rocprof-compute<3.5"}), sorted({k_d6, k_d7, k_d8, k_d9}));
  EXPECT_TRUE(ids({"flydsl>=0"}) == (std::vector<std::string>{k_d6})); // lacking the package: no match
  // A filtered list also carries the stack.
  const json filtered = cli_json({"runs", "--stack", "vllm>=0.26.1", "--format", "json"});
  ASSERT_EQ(filtered.size(), 1U);
  EXPECT_EQ(filtered[0].at("stack").at("vllm").at("release"), "0.26.1");
}

TEST_F(RunStack, AMalformedSpecIsAClearError)
{
  for (const std::string spec : {"vllm>>0.26", "vllm", "vllm>=banana"}) {
    const auto r = run_cli({"--db", s_db.string(), "runs", "--stack", spec});
    EXPECT_EQ(r.code, 2) << spec; // a usage error, like --since bogus
    EXPECT_NE(r.err.find("--stack '" + spec + "'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    const auto p = run_cli({"--db", s_db.string(), "priors", "--stack", spec});
    EXPECT_EQ(p.code, 2) << spec;
    EXPECT_NE(p.err.find("--stack '" + spec + "'"), std::string::npos) << p.err;
  }
}

TEST_F(RunStack, ShowPrintsTheStackLine)
{
  const auto r = run_cli({"--db", s_db.string(), "show", k_d8, "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stack      aiter 0.1.7.post1, rocm 7.1.1, rocprof-compute 3.1.1, sgl-kernel 0.3.21, "
                       "sglang 0.5.17, torch 2.9.1, triton 3.5.0\n"),
            std::string::npos)
      << r.out;
}

TEST_F(RunStack, PriorsStackLimitsTheEvidenceAndReportsTheFilter)
{
  const json all = cli_json({"priors", "--format", "json"});
  EXPECT_FALSE(all.at("parameters").contains("stack"));
  const json only = cli_json({"priors", "--format", "json", "--stack", "vllm>=0.26"});
  EXPECT_EQ(only.at("parameters").at("stack"), json::array({"vllm>=0.26"}));
  // The same priors as a store holding D6 and D7 alone, as of the same date.
  TempDir tmp;
  const auto single = tmp / "d6_d7.sqlite";
  ASSERT_EQ(run_cli({"--db", single.string(), "ingest", dev_run(k_d6).string(), dev_run(k_d7).string()}).code,
            0);
  const auto r = run_cli({"--db", single.string(), "priors", "--format", "json", "--as-of",
                          only.at("as_of").get<std::string>()});
  ASSERT_EQ(r.code, 0) << r.err;
  const json alone = json::parse(r.out);
  EXPECT_EQ(only.at("priors"), alone.at("priors"));
  EXPECT_EQ(only.at("e2e_transfer"), alone.at("e2e_transfer"));
  EXPECT_NE(only.at("priors"), all.at("priors"));
  // --explain takes the filter too.
  const json ex = cli_json({"priors", "--explain", "gemm", "--format", "json", "--stack", "vllm>=0.26"});
  EXPECT_EQ(ex.at("parameters").at("stack"), json::array({"vllm>=0.26"}));
  // A spec no run satisfies leaves no evidence.
  const json none = cli_json({"priors", "--format", "json", "--stack", "vllm>=9"});
  for (const auto& p : none.at("priors")) {
    EXPECT_EQ(p.at("n"), 0) << p.dump();
  }
}

// A package no stored run states (a misspelling) is warned about, with the
// packages the runs do state; the text outputs of priors name their options.
TEST_F(RunStack, AnUnstatedPackageIsWarnedAndTheTextOutputsNameTheFilter)
{
  const std::string stated =
      "the stored runs state: aiter, flydsl, rocm, rocprof-compute, sgl-kernel, sglang, "
      "torch, triton, vllm";
  const auto runs = run_cli({"--db", s_db.string(), "runs", "--stack", "vlm>=0.26", "--format", "json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out), json::array());
  EXPECT_EQ(runs.err,
            "rfdb: warning: --stack 'vlm>=0.26': no stored run states the package 'vlm'; " + stated + "\n");
  const auto priors = run_cli({"--db", s_db.string(), "priors", "--stack", "VLM>=0.26", "--format", "json"});
  ASSERT_EQ(priors.code, 0) << priors.err;
  EXPECT_NE(priors.err.find("no stored run states the package 'vlm'"), std::string::npos) << priors.err;
  // A stated package (any spelling PEP 503 equates) and `backend` draw none.
  for (const std::string spec : {"vllm>=0.26", "SGL_Kernel>=0.3", "backend>=0.1"}) {
    const auto ok = run_cli({"--db", s_db.string(), "runs", "--stack", spec, "--format", "json"});
    ASSERT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(ok.err.find("warning"), std::string::npos) << spec << ": " << ok.err;
  }

  const auto table = run_cli(
      {"--db", s_db.string(), "priors", "--stack", "vllm>=0.26", "--since-shift", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("\nevidence options: --stack 'vllm>=0.26', --since-shift\n"), std::string::npos)
      << table.out;
  const auto md = run_cli({"--db", s_db.string(), "priors", "--stack", "vllm>=0.26", "--format", "md"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("Evidence options: `--stack 'vllm>=0.26'`.\n\n| op class |", 0), 0U) << md.out;
  const auto py = run_cli({"--db", s_db.string(), "priors", "--stack", "vllm>=0.26", "--format", "python"});
  ASSERT_EQ(py.code, 0) << py.err;
  EXPECT_NE(py.out.find("\n# Evidence options: --stack 'vllm>=0.26'.\n"), std::string::npos) << py.out;
  // Without options the outputs say nothing of them.
  const auto plain = run_cli({"--db", s_db.string(), "priors", "--format", "md"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("Evidence options"), std::string::npos);
}

TEST_F(RunStack, ReingestReplacesTheRows)
{
  const std::string before = query_value(s_db, "SELECT count(*) FROM run_stack");
  EXPECT_EQ(before, "26"); // D6 7 + D7 6 + D8 7 + D9 6 packages (the per-run tests)
  const auto again = run_cli({"--db", s_db.string(), "ingest", dev_run(k_d6).string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(query_value(s_db, "SELECT count(*) FROM run_stack"), before);
  EXPECT_EQ(query_value(s_db, "SELECT count(*) FROM run_stack WHERE run_id = '" + k_d6 + "'"), "7");
}

TEST_F(RunStack, StackChangesBetweenTwoRuns)
{
  auto db = store::Database::open_read_only(s_db.string());
  ASSERT_TRUE(db) << db.error().message;
  const auto changes = store::stack_changes(*db, k_d9, k_d6);
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_EQ(*changes, (std::vector<std::string>{
                          "aiter 0.1.5.post2 → 0.1.8.dev3+g77e0c1a",
                          "flydsl (none) → 0.2.1",
                          "rocm 7.0.2 → 7.1.2",
                          "torch 2.9.0+rocm7.0.2 → 2.10.0+rocm7.1.2",
                          "triton 3.4.0 → 3.5.1",
                          "vllm 0.24.1.dev9+g0d3e7a1.rocm702 → 0.26.1.dev37+g9c1d2e4.rocm712",
                      }));
  const auto same = store::stack_changes(*db, k_d6, k_d6);
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->empty());
}

} // namespace
} // namespace rfdb::test
