// GEAK kb records in `rfdb report` end to end (issue 31, docs/playbook.md "GEAK kb records"):
// the kb fixtures (tests/fixtures/kb) ingested, the playbook reads their records through the
// store. Measured positive records that count give What works lines; the retired ones (the
// rmsnorm_fwd experience retired by its ledger, the gemm_a8w8_blockscale tombstone and its
// experience retired by their own fields) never do and are Cautions.
#include "support/helpers.hpp"
#include "support/pg.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

fs::path kb_fixture(const std::string& rel)
{
  return fixtures_dir() / "kb" / rel;
}

// The section of `md` under `heading` (up to the next "## ").
std::string section(const std::string& md, const std::string& heading)
{
  const auto at = md.find("## " + heading);
  if (at == std::string::npos) {
    return "";
  }
  const auto end = md.find("\n## ", at + 3);
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

class KbPlaybook : public ::testing::Test {
protected:
  TempDir tmp;
  fs::path db = tmp / "kb.sqlite";
  void SetUp() override
  {
    const auto r = rfdb(db.string(),
                        {"ingest", "-q", kb_fixture("store").string(), kb_fixture("kb_artifacts").string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  std::string report()
  {
    const auto r = rfdb(db.string(), {"report"});
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  }
};

} // namespace

TEST_F(KbPlaybook, RetiredRecordsAreCautionsNeverWhatWorks)
{
  const std::string md = report();
  const std::string works = section(md, "What works");
  const std::string cautions = section(md, "Cautions");
  ASSERT_FALSE(works.empty()) << md;
  for (const char* retired : {"20260905_083000_c0ffee", "geak-gemm_a8w8_blockscale-5d1e0f2a9b3c-0c9e1d7b55aa",
                              "20260823_120000_0c9e1d"}) {
    EXPECT_EQ(works.find(retired), std::string::npos) << retired << "\n" << works;
    EXPECT_NE(cautions.find(std::string("kb record `") + retired + "`"), std::string::npos) << retired << "\n"
                                                                                            << cautions;
  }
  EXPECT_NE(cautions.find("kb record `20260905_083000_c0ffee` (gfx950 \u00b7 rmsnorm_fwd \u00b7 triton"),
            std::string::npos)
      << cautions;
  EXPECT_NE(
      cautions.find("is retired: ledger: last 3 attempts all negative; last tested outcomes failed, "
                    "not_reproduced, failed; kb: 1 validated, 2 failed, 1 not reproduced, 1 inapplicable"),
      std::string::npos)
      << cautions;
}

TEST_F(KbPlaybook, MeasuredPositiveRecordsGiveLinesGroupedBySignature)
{
  const std::string works = section(report(), "What works");
  // The moe_stage1 session and the kb_artifacts experience share csha:41a080697f04…: one line.
  const auto ms = works.find("kb records `20260902_101010_aa01bd` (");
  ASSERT_NE(ms, std::string::npos) << works;
  const auto line_end = works.find('\n', ms);
  EXPECT_NE(works.substr(ms, line_end - ms)
                .find("`geak-moe_stage1-a2ad7ee7cf21-41a080697f04` (gfx942 \u00b7 "
                      "moe_stage1 \u00b7 ck \u00b7 rocm 7.1; kb: 1 validated, 1 "
                      "failed, 0 not reproduced, 0 inapplicable; GEAK reproductions 2)"),
            std::string::npos)
      << works;
  EXPECT_NE(works.find("### moe \u00b7 gfx942 \u00b7 unknown"), std::string::npos) << works;
}

TEST_F(KbPlaybook, GoldenAndByteIdenticalOnTheSameData)
{
  const std::string md = report();
  EXPECT_EQ(report(), md);
  RFDB_EXPECT_GOLDEN("report/kb.md", md);
}

namespace {

const std::string k_fused_moe_csha = "csha:4b3227c7e42ea185afcd6249b62c0476";

// The What works line naming kb record `key`.
std::string works_line(const std::string& md, const std::string& key)
{
  const std::string works = section(md, "What works");
  const auto at = works.find("`" + key + "`");
  if (at == std::string::npos) {
    return "";
  }
  const auto start = works.rfind("\n- ", at) + 1;
  return works.substr(start, works.find('\n', at) - start);
}

// The lookup lever (JSON) holding `signature`.
nlohmann::json lever_of(const nlohmann::json& answer, const std::string& signature)
{
  for (const auto& l : answer.at("levers")) {
    const auto& sigs = l.at("content_signatures");
    if (std::find(sigs.begin(), sigs.end(), signature) != sigs.end()) {
      return l;
    }
  }
  return nullptr;
}

nlohmann::json lookup_json(const fs::path& db, const std::string& kernel, const std::string& gfx)
{
  const auto r = rfdb(db.string(), {"lookup", kernel, "--gfx", gfx, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

} // namespace

// One GEAK session stored twice — the kb store's knowledge.json and the kb_artifacts experience
// of csha:4b3227c7… (fused_moe_kernel on gfx950, `reproductions: 1` each) — is one measurement
// written twice: the report and lookup both take the largest `reproductions`, not the sum of the
// copies, and give it the same tier (★; the report used to count the two copies as ★★).
TEST_F(KbPlaybook, ASessionStoredTwiceHasTheSameTierInReportAndLookup)
{
  const std::string line = works_line(report(), "20260903_141522_3fa9c1");
  ASSERT_NE(line.find("`geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e`"), std::string::npos) << line;
  EXPECT_TRUE(
      line.starts_with("- \u2605 BLOCK_SIZE_K retune for decode M \u2014 kb record, not validated, no "
                       "run reproduces it yet;"))
      << line;
  const auto lever = lever_of(lookup_json(db, "fused_moe_kernel", "gfx950"), k_fused_moe_csha);
  ASSERT_TRUE(lever.is_object());
  EXPECT_EQ(lever.at("kb_records"),
            (std::vector<std::string>{"20260903_141522_3fa9c1",
                                      "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e"}));
  EXPECT_EQ(lever.at("tier"), 1);
  EXPECT_EQ(lever.at("reproductions"), 1);
  EXPECT_EQ(lever.at("tier_reason"), "single kb record, not validated");
}

// The same two copies, the experience stating `reproductions: 2` (GEAK counted a repeated write):
// ★★ in both, reproduced 2 times — not 3.
TEST(KbPlaybookStoredTwice, TheLargestReproductionsGivesTwoStarsInReportAndLookup)
{
  TempDir tmp;
  const fs::path db = tmp / "twice.sqlite";
  fs::copy(kb_fixture("store"), tmp / "store", fs::copy_options::recursive);
  fs::copy(kb_fixture("kb_artifacts"), tmp / "kb_artifacts", fs::copy_options::recursive);
  const fs::path meta =
      tmp / "kb_artifacts/gfx950/triton/fused_moe_kernel__triton__gfx950/20260903_141522_3fa9c1/meta.yaml";
  std::string text = read_bytes(meta);
  const auto at = text.find("reproductions: 1\n");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "reproductions: 2\n");
  write_bytes(meta, text);
  const auto in =
      rfdb(db.string(), {"ingest", "-q", (tmp / "store").string(), (tmp / "kb_artifacts").string()});
  ASSERT_EQ(in.code, 0) << in.err;
  const auto r = rfdb(db.string(), {"report"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string line = works_line(r.out, "20260903_141522_3fa9c1");
  EXPECT_TRUE(
      line.starts_with("- \u2605\u2605 BLOCK_SIZE_K retune for decode M \u2014 kb record reproduced 2 "
                       "times, no run reproduces it yet;"))
      << line;
  const auto lever = lever_of(lookup_json(db, "fused_moe_kernel", "gfx950"), k_fused_moe_csha);
  ASSERT_TRUE(lever.is_object());
  EXPECT_EQ(lever.at("tier"), 2);
  EXPECT_EQ(lever.at("reproductions"), 2);
  EXPECT_EQ(lever.at("tier_reason"), "kb record reproduced 2 times");
}

// Both worlds: D6's authored w8a8 kernel (accepted, 1.899×, +15.81 %) is signed
// csha:4ba4f6446b6b97a59a99e8df7cb65a9d (its section of the final diff, see lookup_test.cpp); a kb
// session of that signature, validated twice, is the same implementation — the run's line names
// it and counts the run as its reproduction.
TEST(KbPlaybookBothWorlds, ARunWhoseAttemptSignsLikeAKbRecordNamesItOnItsLine)
{
  TempDir tmp;
  const fs::path db = tmp / "both.sqlite";
  const std::string sid = "geak-_w8a8_block_fp8_matmul-0123456789ab-4ba4f6446b6b";
  const fs::path session = tmp / "kbstore" / "geak" / "kernel" / "gfx950" / "_w8a8_block_fp8_matmul" /
                           "triton" / "rocm" / "7.2" / "sessions" / sid;
  fs::create_directories(session);
  const nlohmann::json history = nlohmann::json::array(
      {{{"at", "2026-09-01T10:00:00Z"}, {"by", "kernel_lane"}, {"outcome", "validated"}},
       {{"at", "2026-09-02T10:00:00Z"}, {"by", "kernel_lane"}, {"outcome", "validated"}}});
  const nlohmann::json record = {{"identity",
                                  {{"backend", "triton"},
                                   {"framework", "rocm"},
                                   {"framework_version", "7.2"},
                                   {"gpu", "gfx950"},
                                   {"kernel_name", "_w8a8_block_fp8_matmul"}}},
                                 {"producer", "geak"},
                                 {"speedup", 1.85},
                                 {"value",
                                  {{"content_signature", "csha:4ba4f6446b6b97a59a99e8df7cb65a9d"},
                                   {"direction", "authored triton kernel"},
                                   {"lifecycle", "active"},
                                   {"metric", {{"metric_kind", "geomean"}, {"speedup", 1.85}}},
                                   {"reproductions", 1},
                                   {"validated", true},
                                   {"verified_on", "2026-08-30"},
                                   {"attestations",
                                    {{"recalls", 2},
                                     {"validations", 2},
                                     {"failures", 0},
                                     {"not_reproduced", 0},
                                     {"inapplicable", 0},
                                     {"history", history}}}}}};
  std::ofstream(session / "knowledge.json") << record.dump(2);
  const auto in = rfdb(db.string(),
                       {"ingest", "-q", dev_run("e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931").string(),
                        (tmp / "kbstore").string()});
  ASSERT_EQ(in.code, 0) << in.err;
  const auto r = rfdb(db.string(), {"report"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string works = section(r.out, "What works");
  const auto at =
      works.find("kb record `" + sid +
                 "` (kb: 2 validated, 0 failed, 0 not reproduced, 0 "
                 "inapplicable; reproduced by run `e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931`");
  ASSERT_NE(at, std::string::npos) << works;
  const auto line =
      works.substr(works.rfind("\n- ", at) + 1, works.find('\n', at) - works.rfind("\n- ", at) - 1);
  EXPECT_NE(line.find("authored triton kernel"), std::string::npos) << line;
  // The run and the kb record are two sources; the record's validations make it clean.
  EXPECT_NE(line.find("confirms 2"), std::string::npos) << line;
  // No kb-only line for it: it joined the run's line.
  EXPECT_EQ(works.find(sid), at + std::string("kb record `").size()) << works;
}

// The records and their histories read the same from PostgreSQL (queries/kb_records.sql and
// queries/kb_attestations_current.sql run on both dialects): the same playbook.
TEST(PgStoreKbPlaybook, ThePlaybookOfTheKbTreesIsTheSame)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  const auto in = run_cli(
      {"--db", pg.url(), "ingest", "-q", kb_fixture("store").string(), kb_fixture("kb_artifacts").string()});
  ASSERT_EQ(in.code, 0) << in.err;
  const auto r = run_cli({"--db", pg.url(), "report"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, read_golden("report/kb.md"));
}

} // namespace rfdb::test
