// An entry that vanishes between the walk's listing and its stat or open
// (issue 34 item 1, follow-up): a temporary entry rfdb does not read (an
// editor's swap file, a scratch directory) is skipped silently; an artifact
// or knowledge file is skipped with the warning "vanished between listing
// and reading" (an error with --strict). The race is made deterministic
// with the after-list and before-open hooks.
#include "support/helpers.hpp"

#include "ingest/evaldir/files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <string>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// The action a test runs once, when the hook fires for `at`.
std::mutex g_mutex;
std::string g_at;
std::function<void()> g_run;
bool g_done = false;

void fire(const std::string& at)
{
  const std::lock_guard lock(g_mutex);
  if (!g_done && at == g_at) {
    g_done = true;
    g_run();
  }
}

// Runs `run` once, after the walk listed the directory `dir_rel` (after_list)
// or before load_file opens `rel_path` (before_open), for the scope's life.
class Hook {
public:
  enum class When { after_list, before_open };
  Hook(When when, std::string at, std::function<void()> run)
  {
    {
      const std::lock_guard lock(g_mutex);
      g_at = std::move(at);
      g_run = std::move(run);
      g_done = false;
    }
    if (when == When::after_list) {
      ingest::set_after_list_hook(&fire);
    } else {
      ingest::set_before_open_hook(&fire);
    }
  }
  Hook(const Hook&) = delete;
  Hook& operator=(const Hook&) = delete;
  ~Hook()
  {
    ingest::set_after_list_hook(nullptr);
    ingest::set_before_open_hook(nullptr);
  }
  static bool done()
  {
    const std::lock_guard lock(g_mutex);
    return g_done;
  }
};

class IngestVanish : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { ingest::set_openat2_enabled(GetParam()); }
  void TearDown() override { ingest::set_openat2_enabled(true); }
};

} // namespace

TEST_P(IngestVanish, ScratchDirectoryRemovedAfterListingIsSkippedSilently)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  fs::create_directories(run / "tmpdir");
  write_bytes(run / "tmpdir" / "scratch.txt", "x");
  CliResult r;
  {
    const Hook hook(Hook::When::after_list, "", [&] { fs::remove_all(run / "tmpdir"); });
    r = run_cli({"--db", db.string(), "ingest", run.string()});
    ASSERT_TRUE(Hook::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "warning")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "18");
}

TEST_P(IngestVanish, ArtifactRemovedBetweenListingAndStatIsWarnedAndTheRunStoredWithoutIt)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto run = copy_run(k_canonical_run, tmp.path());
  CliResult r;
  {
    const Hook hook(Hook::When::after_list, "profile/round_0",
                    [&] { fs::remove(run / "profile" / "round_0" / "profile_roofline.json"); });
    r = run_cli({"--db", db.string(), "ingest", run.string()});
    ASSERT_TRUE(Hook::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "profile/round_0/profile_roofline.json: not read: vanished between listing "
                              "and reading"))
      << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "17");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path LIKE '%profile_roofline.json'"),
            "0");
}

TEST_P(IngestVanish, DirectoryRenamedBeforeItsFilesAreOpenedIsWarnedPerFileAndStrictFails)
{
  for (const bool strict : {false, true}) {
    SCOPED_TRACE(strict ? "--strict" : "default");
    TempDir tmp;
    const auto db = tmp / "rfdb.sqlite";
    const auto run = copy_run(k_canonical_run, tmp.path());
    CliResult r;
    {
      const Hook hook(Hook::When::before_open, "overlay/cand_fused_moe_kernel/cand/bench_summary.json", [&] {
        fs::rename(run / "overlay" / "cand_fused_moe_kernel", run / "overlay" / ".keep");
      });
      std::vector<std::string> args{"--db", db.string(), "ingest", run.string()};
      if (strict) {
        args.insert(args.begin() + 3, "--strict");
      }
      r = run_cli(args);
      ASSERT_TRUE(Hook::done());
    }
    if (strict) {
      EXPECT_EQ(r.code, 1) << r.err;
      EXPECT_TRUE(contains(r.err, "--strict: refused to read overlay/cand_fused_moe_kernel/cand/"
                                  "bench_summary.json (vanished between listing and reading)"))
          << r.err;
      EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "0");
      continue;
    }
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* rel : {"overlay/cand_fused_moe_kernel/cand/bench_summary.json",
                            "overlay/cand_fused_moe_kernel/integrate_result.json",
                            "overlay/cand_fused_moe_kernel/ref/bench_summary.json"}) {
      EXPECT_TRUE(contains(r.err, std::string(rel) + ": not read: vanished between listing and reading"))
          << rel << "\n"
          << r.err;
    }
    EXPECT_FALSE(contains(r.err, "cannot open")) << r.err;
    EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "15");
  }
}

TEST_P(IngestVanish, EditorSwapFileRemovedAfterListingAKnowledgeDirIsSkippedSilently)
{
  TempDir tmp;
  const auto db = tmp / "rfdb.sqlite";
  const auto kb = tmp / "kb";
  fs::create_directories(kb);
  fs::copy_file(fixtures_dir() / "knowledge" / "learned" / "method-ab-pinning.md", kb / "card1.md");
  fs::copy_file(fixtures_dir() / "knowledge" / "learned" / "multiline-moe-fp8-gfx90a.md", kb / "card2.md");
  write_bytes(kb / ".card1.md.swp", "vim swap");
  CliResult r;
  {
    const Hook hook(Hook::When::after_list, "", [&] { fs::remove(kb / ".card1.md.swp"); });
    r = run_cli({"--db", db.string(), "ingest", kb.string()});
    ASSERT_TRUE(Hook::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "swp")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "2");

  // A card that vanishes the same way is a file rfdb reads: warned.
  write_bytes(kb / "card3.md", read_bytes(kb / "card2.md"));
  {
    const Hook hook(Hook::When::after_list, "", [&] { fs::remove(kb / "card3.md"); });
    r = run_cli({"--db", db.string(), "ingest", kb.string()});
    ASSERT_TRUE(Hook::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "kb/card3.md: not read: vanished between listing and reading")) << r.err;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources"), "2");
}

INSTANTIATE_TEST_SUITE_P(OpenPath, IngestVanish, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("openat2") : std::string("openat");
                         });

} // namespace rfdb::test
