// ListingPrefetcher: listings taken in order, skipped, refused or not made are what list_eval_dir gives.
#include "support/helpers.hpp"

#include "ingest/evaldir/prefetch.hpp"

#include <gtest/gtest.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using ingest::ListingPrefetcher;

// An eval dir `name` under `root` with env_report.json and `extra` artifacts.
std::string make_run(const fs::path& root, const std::string& name, const std::vector<std::string>& extra)
{
  const auto dir = root / name;
  write_bytes(dir / "env_report.json", "{}");
  for (const auto& rel : extra) {
    write_bytes(dir / rel, "{}");
  }
  return dir.string();
}

std::vector<std::string> rel_paths(const ingest::EvalDirContents& c)
{
  std::vector<std::string> out;
  for (const auto& f : c.files) {
    out.push_back(f.rel_path);
  }
  return out;
}

} // namespace

TEST(ListingPrefetcher, GivesEachEvalDirsListingInOrderAndSkipsWhatIsNotAnEvalDir)
{
  TempDir tmp;
  std::vector<std::string> dirs;
  for (int i = 0; i < 20; ++i) {
    dirs.push_back(
        make_run(tmp.path(), "e2e_m_20260101_00000" + std::to_string(i % 10) + "_" + std::to_string(i),
                 {"baseline/bench_summary.json", "kernels/t" + std::to_string(i) + "/opbench_result.json"}));
  }
  write_bytes(tmp / "learned/card.md", "x");
  dirs.insert(dirs.begin() + 3, (tmp / "learned").string()); // knowledge: not listed
  ListingPrefetcher prefetch(dirs, ingest::k_default_max_file_size, 4);
  EXPECT_FALSE(prefetch.take(dirs[3], ingest::k_default_max_file_size)) << "not an eval dir";
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (i == 3) {
      continue;
    }
    auto listed = prefetch.take(dirs[i], ingest::k_default_max_file_size);
    if (i < 3) {
      // Taken after dirs[3] was asked for: dropped, the caller lists it.
      EXPECT_FALSE(listed) << dirs[i];
      continue;
    }
    ASSERT_TRUE(listed) << dirs[i];
    ASSERT_TRUE(listed->listing) << listed->listing.error().describe();
    EXPECT_TRUE(listed->files.empty()) << "not loaded without set_load";
    auto direct = ingest::list_eval_dir(dirs[i]);
    ASSERT_TRUE(direct);
    EXPECT_EQ(rel_paths(*listed->listing), rel_paths(*direct));
    EXPECT_EQ(listed->listing->files.back().path, direct->files.back().path);
    EXPECT_EQ(listed->listing->files.back().mtime_ns, direct->files.back().mtime_ns);
    EXPECT_TRUE(listed->listing->files.back().sha256.empty());
  }
  EXPECT_FALSE(prefetch.take(dirs.back(), ingest::k_default_max_file_size)) << "taken already";
}

TEST(ListingPrefetcher, SkipsAheadCarriesErrorsAndHonoursTheSizeLimit)
{
  TempDir tmp;
  const auto a = make_run(tmp.path(), "e2e_a_20260101_000000_1", {});
  const auto b = make_run(tmp.path(), "e2e_b_20260101_000000_1", {"workflow_return.json"});
  const auto c = make_run(tmp.path(), "e2e_c_20260101_000000_1", {});
  write_bytes(fs::path(c) / "baseline/bench_summary.json", std::string(2048, ' '));
  const auto d = make_run(tmp.path(), "e2e_d_20260101_000000_1", {});
  {
    ListingPrefetcher prefetch({a, b, c, d}, 1024, 1);
    // b first: a is dropped; c's artifact is over the limit: the same error
    // as listing it directly.
    auto listed = prefetch.take(b, 1024);
    ASSERT_TRUE(listed && listed->listing);
    EXPECT_EQ(rel_paths(*listed->listing),
              (std::vector<std::string>{"env_report.json", "workflow_return.json"}));
    EXPECT_FALSE(prefetch.take(a, 1024));
    EXPECT_FALSE(prefetch.take(c, 4096)) << "another limit: listed by the caller";
    listed = prefetch.take(c, 1024);
    ASSERT_TRUE(listed);
    ASSERT_FALSE(listed->listing);
    EXPECT_EQ(listed->listing.error().describe(), ingest::list_eval_dir(c, 1024).error().describe());
  } // d may be listed or not: the destructor stops and joins the thread
  ListingPrefetcher unused({a, b, c, d}, 1024, 2);
}

TEST(ListingPrefetcher, AfterSetLoadFilesAreLoadedParsedAndCompressedAsIngestWould)
{
  TempDir tmp;
  std::vector<std::string> dirs;
  for (int i = 0; i < 4; ++i) {
    dirs.push_back(make_run(tmp.path(), "e2e_m_20260101_00000" + std::to_string(i) + "_1", {}));
  }
  write_bytes(fs::path(dirs[2]) / "env_report.json", "{\"a\": 1,");                // does not parse
  write_bytes(fs::path(dirs[3]) / "workflow_return.json", std::string(4096, ' ')); // over the budget
  // One dir ahead: dirs[1] on are listed after set_load.
  ListingPrefetcher prefetch(dirs, ingest::k_default_max_file_size, 1, 2, 1024);
  prefetch.set_load(true, nullptr);
  ASSERT_TRUE(prefetch.take(dirs[0], ingest::k_default_max_file_size));
  auto loaded = prefetch.take(dirs[1], ingest::k_default_max_file_size);
  ASSERT_TRUE(loaded && loaded->listing);
  ASSERT_EQ(loaded->files.size(), 1U);
  const ingest::FileData& f = loaded->listing->files.front();
  EXPECT_EQ(f.content, "{}");
  EXPECT_EQ(f.sha256, ingest::sha256_hex("{}"));
  const auto& ahead = loaded->files.front();
  ASSERT_TRUE(ahead);
  EXPECT_EQ(ahead->text.data(), f.content.data());
  ASSERT_TRUE(ahead->artifact && *ahead->artifact);
  ASSERT_TRUE(ahead->frame);
  EXPECT_EQ(ahead->frame->frame, store::TextCodec::compress_ahead("{}", nullptr).frame);
  auto broken = prefetch.take(dirs[2], ingest::k_default_max_file_size);
  ASSERT_TRUE(broken && broken->listing && broken->files.size() == 1U && broken->files.front());
  ASSERT_TRUE(broken->files.front()->artifact);
  ASSERT_FALSE(*broken->files.front()->artifact);
  std::vector<ingest::Warning> warnings;
  EXPECT_EQ(
      broken->files.front()->artifact->error().describe(),
      ingest::parse_artifact(broken->listing->files.front().kind, "env_report.json", "{\"a\": 1,", warnings)
          .error()
          .describe());
  auto big = prefetch.take(dirs[3], ingest::k_default_max_file_size);
  ASSERT_TRUE(big && big->listing);
  EXPECT_TRUE(big->files.empty()) << "over the byte budget: ingest loads it";
  EXPECT_TRUE(big->listing->files.front().sha256.empty());
}

} // namespace rfdb::test
