// Ingest opens what its walk checked (issue 34 item 1): a file swapped for a
// link to a file outside the eval dir, or for another file, between the walk
// that listed it and the open that reads it, is not read. The race is made
// deterministic with ingest::set_before_open_hook, which runs the swap at
// exactly that moment.
#include "support/helpers.hpp"

#include "ingest/evaldir/files.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

const std::string k_marker = "OUTSIDE_THE_EVAL_DIR_7f3a";

bool contains(const std::string& haystack, const std::string& needle)
{
  return haystack.find(needle) != std::string::npos;
}

// The swap a test wants run once, when ingest is about to open `rel_path`.
struct Swap {
  std::string rel_path;
  std::function<void()> run;
  bool done = false;
};
std::mutex g_swap_mutex;
const std::thread::id g_main_thread = std::this_thread::get_id();
bool g_swapped_off_main = false; // set under g_swap_mutex
Swap g_swap;

void before_open(const std::string& rel_path)
{
  const std::lock_guard lock(g_swap_mutex);
  if (!g_swap.done && rel_path == g_swap.rel_path) {
    g_swap.done = true;
    g_swap.run();
  }
}

// Installs the hook with `swap` for the life of the scope.
class SwapBeforeOpen {
public:
  SwapBeforeOpen(std::string rel_path, std::function<void()> run)
  {
    {
      const std::lock_guard lock(g_swap_mutex);
      g_swap = Swap{std::move(rel_path), std::move(run), false};
    }
    ingest::set_before_open_hook(&before_open);
  }
  SwapBeforeOpen(const SwapBeforeOpen&) = delete;
  SwapBeforeOpen& operator=(const SwapBeforeOpen&) = delete;
  ~SwapBeforeOpen() { ingest::set_before_open_hook(nullptr); }

  static bool done()
  {
    const std::lock_guard lock(g_swap_mutex);
    return g_swap.done;
  }
};

// Every file `rfdb export --raw RUN` writes, concatenated.
std::string exported_text(const fs::path& db, const std::string& run, const fs::path& out)
{
  const auto r = run_cli({"--db", db.string(), "export", "--raw", run, "--out", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.is_regular_file()) {
      all += read_bytes(e.path());
    }
  }
  return all;
}

// A copy of the canonical run and, outside it, a validation file holding the marker.
struct RaceSetup {
  TempDir tmp;
  fs::path db = tmp / "rfdb.sqlite";
  fs::path run = copy_run(k_canonical_run, tmp.path());
  fs::path outside = tmp / "outside";
  RaceSetup()
  {
    fs::create_directories(outside);
    std::string text = read_bytes(run / "director_e2e_validation.json");
    const std::string note = "\"arbitration_note\": \"";
    const auto at = text.find(note);
    EXPECT_NE(at, std::string::npos);
    text.insert(at + note.size(), k_marker + " ");
    write_bytes(outside / "director_e2e_validation.json", text);
  }
};

// Each test runs with openat2 (where the kernel has it) and with the
// component-by-component fallback a kernel without it uses.
class IngestRace : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { ingest::set_openat2_enabled(GetParam()); }
  void TearDown() override { ingest::set_openat2_enabled(true); }
};

} // namespace

TEST_P(IngestRace, FileSwappedForALinkOutsideTheEvalDirAfterTheWalkIsNotReadAndIsWarned)
{
  RaceSetup s;
  const auto target = s.run / "director_e2e_validation.json";
  CliResult r;
  {
    const SwapBeforeOpen swap("director_e2e_validation.json", [&] {
      fs::remove(target);
      fs::create_symlink(s.outside / "director_e2e_validation.json", target);
    });
    r = run_cli({"--db", s.db.string(), "ingest", s.run.string()});
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": director_e2e_validation.json: not read: it became a symlink "
                                  "between listing and reading"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE rel_path = 'director_e2e_validation.json'"),
            "0");
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources"), "17");
  const std::string exported = exported_text(s.db, k_canonical_run, s.tmp / "export");
  EXPECT_FALSE(contains(exported, k_marker));
  EXPECT_TRUE(contains(exported, "\"gfx\"")) << "the rest of the run is exported";
}

TEST_P(IngestRace, DirectorySwappedForALinkOutsideTheEvalDirAfterTheWalkIsNotRead)
{
  RaceSetup s;
  // The outside tree mirrors profile/round_0 with a marked profile_topN.json.
  const auto round = s.run / "profile/round_0";
  fs::create_directories(s.outside / "round_0");
  std::string topn = read_bytes(round / "profile_topN.json");
  topn.insert(topn.rfind('}'), ", \"note_" + k_marker + "\": 1");
  write_bytes(s.outside / "round_0/profile_topN.json", topn);
  CliResult r;
  {
    const SwapBeforeOpen swap("profile/round_0/profile_topN.json", [&] {
      fs::rename(round, s.tmp / "moved_round_0");
      fs::create_directory_symlink(s.outside / "round_0", round);
    });
    r = run_cli({"--db", s.db.string(), "ingest", s.run.string()});
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": profile/round_0/profile_topN.json: not read: a directory on "
                                  "its path became a symlink between listing and reading"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE rel_path = "
                              "'profile/round_0/profile_topN.json'"),
            "0");
  EXPECT_FALSE(contains(exported_text(s.db, k_canonical_run, s.tmp / "export"), k_marker));
}

TEST_P(IngestRace, FileReplacedByAnotherFileAfterTheWalkIsNotReadAndStrictFailsTheRun)
{
  RaceSetup s;
  const auto target = s.run / "director_e2e_validation.json";
  const auto swap_in = [&] {
    // A new file renamed over the listed one: another inode.
    fs::copy_file(s.outside / "director_e2e_validation.json", s.tmp / "new.json",
                  fs::copy_options::overwrite_existing);
    fs::rename(s.tmp / "new.json", target);
  };
  CliResult r;
  {
    const SwapBeforeOpen swap("director_e2e_validation.json", swap_in);
    r = run_cli({"--db", s.db.string(), "ingest", "--strict", s.run.string()});
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--strict: refused to read director_e2e_validation.json (replaced by another "
                              "file between listing and reading)"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources"), "0");

  // Without --strict: a warning, and the run stored without that file.
  fs::remove(target);
  fs::copy_file(run_fixture(k_canonical_run) / "director_e2e_validation.json", target);
  {
    const SwapBeforeOpen swap("director_e2e_validation.json", swap_in);
    r = run_cli({"--db", s.db.string(), "ingest", s.run.string()});
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": director_e2e_validation.json: not read: replaced by another "
                                  "file between listing and reading"))
      << r.err;
  EXPECT_FALSE(contains(exported_text(s.db, k_canonical_run, s.tmp / "export"), k_marker));

  // The next ingest, with nothing swapped, reads the file as it now is.
  r = run_cli({"--db", s.db.string(), "ingest", s.run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_TRUE(contains(exported_text(s.db, k_canonical_run, s.tmp / "export2"), k_marker));
}

TEST_P(IngestRace, LinkedTargetInsideTheEvalDirReplacedAfterTheWalkIsNotRead)
{
  RaceSetup s;
  // env_report.json → meta/env.json (a link the walk allows), and the
  // validation file → meta/validation.json.
  fs::create_directories(s.run / "meta");
  fs::rename(s.run / "director_e2e_validation.json", s.run / "meta/validation.json");
  fs::create_symlink("meta/validation.json", s.run / "director_e2e_validation.json");
  CliResult r;
  {
    const SwapBeforeOpen swap("director_e2e_validation.json", [&] {
      fs::copy_file(s.outside / "director_e2e_validation.json", s.tmp / "new.json");
      fs::rename(s.tmp / "new.json", s.run / "meta/validation.json");
    });
    r = run_cli({"--db", s.db.string(), "ingest", s.run.string()});
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run +
                                  ": director_e2e_validation.json: not read: replaced by another "
                                  "file between listing and reading"))
      << r.err;
  EXPECT_FALSE(contains(exported_text(s.db, k_canonical_run, s.tmp / "export"), k_marker));
  // Untouched, the same link is read (through its target, checked).
  const auto db2 = s.tmp / "second.sqlite";
  r = run_cli({"--db", db2.string(), "ingest", s.run.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "not read")) << r.err;
  EXPECT_EQ(query_value(db2, "SELECT count(*) FROM sources WHERE rel_path = 'director_e2e_validation.json'"),
            "1");
}

TEST_P(IngestRace, FileSwappedWhileTheNextRunIsLoadedAheadIsNotReadEither)
{
  // Several runs in one command: the next runs are listed and loaded on
  // background threads, so the open the swap precedes may be the
  // prefetcher's; ingest then opens the file again and finds the link.
  // The prefetcher loads ahead only the runs it lists once a run needed
  // reading, and lists 8 ahead: the swapped run comes after 10 others.
  RaceSetup s;
  std::vector<std::string> args{"--db", s.db.string(), "ingest", "--allow-copy"};
  for (int i = 0; i < 10; ++i) {
    const auto name = fmt::format("e2e_Qwen-Qwen3-32B_202607{:02}_142210_9120_p0aa", i + 1);
    fs::copy(run_fixture(k_gemm_run), s.tmp / name, fs::copy_options::recursive);
    args.push_back((s.tmp / name).string());
  }
  args.push_back(s.run.string());
  {
    const std::lock_guard lock(g_swap_mutex);
    g_swapped_off_main = false;
  }
  // A file only the last run has.
  const std::string rel = "kernels/fused_moe_kernel_task/opbench_result.json";
  const auto target = s.run / rel;
  CliResult r;
  {
    const SwapBeforeOpen swap(rel, [&] {
      if (std::this_thread::get_id() != g_main_thread) {
        g_swapped_off_main = true;
      }
      fs::remove(target);
      fs::create_symlink(s.outside / "director_e2e_validation.json", target);
    });
    r = run_cli(args);
    ASSERT_TRUE(SwapBeforeOpen::done());
  }
  EXPECT_TRUE(g_swapped_off_main) << "the swap ran before the prefetcher's open";
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "rfdb: warning: " + k_canonical_run + ": " + rel +
                                  ": not read: it became a symlink between listing "
                                  "and reading"))
      << r.err;
  EXPECT_EQ(query_value(s.db, "SELECT count(*) FROM sources WHERE run_id = '" + k_canonical_run +
                                  "' AND rel_path = '" + rel + "'"),
            "0");
  EXPECT_FALSE(contains(exported_text(s.db, k_canonical_run, s.tmp / "export"), k_marker));
}

INSTANTIATE_TEST_SUITE_P(OpenPath, IngestRace, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("Openat2") : std::string("OpenatComponents");
                         });

} // namespace rfdb::test
