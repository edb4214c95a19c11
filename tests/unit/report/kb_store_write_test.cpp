// write_kb_store (report/kb_export.hpp): the promotion rule applied in session-id order (ties
// never promote), GEAK's safe_rel_path and session-id rules, the JSON bytes GEAK writes. Values
// from GEAK-KB §10.
#include "support/helpers.hpp"

#include "report/kb_export.hpp"

#include <gtest/gtest.h>

namespace rfdb::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_bytes;
using test::TempDir;

const std::vector<std::string> k_ladder = {"geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2",
                                           "geak:kernel:gfx950:fused_moe_kernel:triton:rocm"};

KbRecord kernel_record(const std::string& sid, double speedup)
{
  KbRecord r;
  r.lane = "kernel";
  r.ladder = k_ladder;
  r.session_id = sid;
  r.knowledge =
      json{{"producer", "rfdb"}, {"speedup", speedup}, {"value", {{"direction", "BLOCK_SIZE_K retune"}}}};
  r.source = "test";
  return r;
}

json champion(const fs::path& root, const std::string& cid_path)
{
  return json::parse(read_bytes(root / cid_path / "champion.json"));
}

TEST(KbStoreWrite, TiesNeverPromoteTheFirstInSessionOrderHolds)
{
  TempDir dir;
  // Same score: the first by session id is promoted, the second ties it and does not.
  const auto summary =
      write_kb_store(dir.path(), {kernel_record("rfdb-b", 1.8742), kernel_record("rfdb-a", 1.8742)});
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->identities, 2U);
  EXPECT_EQ(summary->sessions_written, 4U);
  EXPECT_EQ(summary->champions_promoted, 2U);
  const std::string rung0 = "geak/kernel/gfx950/fused_moe_kernel/triton/rocm/7.2";
  EXPECT_EQ(read_bytes(dir / (rung0 + "/champion.json")),
            "{\n  \"metric\": \"speedup\",\n  \"session_id\": \"rfdb-a\",\n  \"value\": 1.8742\n}");
  // A later, higher score re-points; an equal one (a tie) does not. Each write is a whole
  // export: the records it is given are every rfdb session of the store.
  const auto tie =
      write_kb_store(dir.path(), {kernel_record("rfdb-a", 1.8742), kernel_record("rfdb-b", 1.8742),
                                  kernel_record("rfdb-c", 1.8742)});
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(tie->champions_promoted, 0U);
  EXPECT_EQ(tie->sessions_removed, 0U);
  EXPECT_EQ(champion(dir.path(), rung0)["session_id"], "rfdb-a");
  const auto up =
      write_kb_store(dir.path(), {kernel_record("rfdb-a", 1.8742), kernel_record("rfdb-b", 1.8742),
                                  kernel_record("rfdb-c", 1.8743)});
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(up->champions_promoted, 2U);
  EXPECT_EQ(champion(dir.path(), rung0)["session_id"], "rfdb-c");
  // An rfdb session no longer given is removed from both rungs; the champion it is not stays.
  const auto only_c = write_kb_store(dir.path(), {kernel_record("rfdb-c", 1.8743)});
  ASSERT_TRUE(only_c.has_value());
  EXPECT_EQ(only_c->sessions_removed, 4U);
  EXPECT_EQ(only_c->champions_kept, 2U);
  EXPECT_FALSE(fs::exists(dir / (rung0 + "/sessions/rfdb-a")));
  EXPECT_FALSE(fs::exists(dir / (rung0 + "/sessions/rfdb-b")));
  EXPECT_EQ(champion(dir.path(), rung0)["session_id"], "rfdb-c");
}

TEST(KbStoreWrite, NoPromotionAtOrBelowTheFloor)
{
  TempDir dir;
  const auto s = write_kb_store(dir.path(), {kernel_record("rfdb-a", 1.0), kernel_record("rfdb-b", 0.97)});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->champions_promoted, 0U);
  EXPECT_FALSE(fs::exists(dir / "geak/kernel/gfx950/fused_moe_kernel/triton/rocm/7.2/champion.json"));
  EXPECT_TRUE(
      fs::exists(dir / "geak/kernel/gfx950/fused_moe_kernel/triton/rocm/7.2/sessions/rfdb-b/knowledge.json"));
}

TEST(KbStoreWrite, RefusesUnsafePathsAndForeignSessionIdsBeforeWriting)
{
  TempDir dir;
  auto bad_file = kernel_record("rfdb-a", 1.5);
  bad_file.files["../escape"] = "x";
  auto r = write_kb_store(dir / "kb", {bad_file});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
  EXPECT_NE(r.error().message.find("'../escape'"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(dir / "kb"));

  for (const char* p : {"a:b", "/abs", "a//b", "a/./b", "a\\b", ""}) {
    EXPECT_TRUE(kb_rel_path_problem(p).has_value()) << p;
  }
  EXPECT_FALSE(kb_rel_path_problem("artifact/E=8,N=1024.json").has_value()); // '=' and ',' are fine
  EXPECT_FALSE(kb_rel_path_problem("evidence/overlay/cand_x/integrate_result.json").has_value());

  auto foreign = kernel_record("geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e", 1.5);
  r = write_kb_store(dir / "kb", {foreign});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("not an rfdb session id"), std::string::npos);
  auto bad_id = kernel_record("rfdb-a", 1.5);
  bad_id.ladder = {"geak:kernel:GFX950:x:triton:rocm"};
  EXPECT_FALSE(write_kb_store(dir / "kb", {bad_id}).has_value());
  EXPECT_FALSE(fs::exists(dir / "kb"));
}

TEST(KbStoreWrite, JsonTextAndScoresAsGeakReadsThem)
{
  EXPECT_EQ(kb_json_text(json{{"value", 1.0}, {"metric", "speedup"}, {"a", json::array()}}),
            "{\n  \"a\": [],\n  \"metric\": \"speedup\",\n  \"value\": 1.0\n}");
  EXPECT_EQ(kb_json_text(json{{"direction", "K\u00e4se"}}),
            "{\n  \"direction\": \"K\u00e4se\"\n}"); // not \u-escaped
  EXPECT_EQ(kb_score(json{{"speedup", 1.8742}}, "speedup"), 1.8742);
  EXPECT_EQ(kb_score(json{{"speedup", true}}, "speedup"), std::nullopt);
  EXPECT_EQ(kb_score(json{{"speedup", "1.9"}}, "speedup"), std::nullopt);
  EXPECT_EQ(kb_score(json{{"speedup", nullptr}}, "speedup"), std::nullopt);
  EXPECT_EQ(kb_score(json{{"throughput_tok_s", 10412.6}}, "speedup"), std::nullopt);
}

} // namespace
} // namespace rfdb::report
