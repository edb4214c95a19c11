// Issue 27's run rules end to end, on small edits of a dev run copied into a
// temporary directory (tests/fixtures/dev-runs stays as it is):
// - an authored kernel's variant (split-K, …) named by its candidate or its
//   ledger row is a lever of its own: its own What works line.
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
  EXPECT_TRUE(contains(plain, "isolated 1.899\u00d7; e2e +15.81 %;")) << plain;
  EXPECT_TRUE(contains(plain, "`" + k_d6 + "#cand:cand_" + k_gemm + "_triton`")) << plain;
  EXPECT_FALSE(contains(plain, sibling)) << plain;
  const std::string splitk = line_with(lines, "authored triton kernel (split-K) \u2014");
  // One clean run, not deployed: the Director's win does not include it.
  EXPECT_TRUE(splitk.starts_with("- \u2605\u2605 authored triton kernel (split-K) \u2014")) << splitk;
  EXPECT_TRUE(contains(splitk, "isolated 1.680\u00d7; e2e +13.65 %;")) << splitk;
  EXPECT_TRUE(contains(splitk, "`" + k_d6 + "#cand:" + sibling + "`")) << splitk;
  EXPECT_EQ(run_cli({"--db", db.string(), "check"}).code, 0);
}

} // namespace rfdb::test
