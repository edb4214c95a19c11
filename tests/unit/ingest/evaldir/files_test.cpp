// read_eval_dir's walk (symlinks, special files, loops, the size limit),
// read_file's limit and looks_like_eval_dir, on directories built per test.
#include "support/helpers.hpp"

#include "ingest/evaldir/files.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using ingest::read_eval_dir;

std::vector<std::string> rel_paths(const ingest::EvalDirContents& c)
{
  std::vector<std::string> out;
  for (const auto& f : c.files) {
    out.push_back(f.rel_path);
  }
  return out;
}

std::vector<std::string> refused(const ingest::EvalDirContents& c)
{
  std::vector<std::string> out;
  for (const auto& r : c.refused) {
    out.push_back(r.rel_path + ": " + r.reason);
  }
  return out;
}

} // namespace

TEST(ReadEvalDir, FollowsLinksInsideUnderTheLinkPath)
{
  TempDir tmp;
  const auto run = tmp / "run";
  write_bytes(run / "store/env.json", "{}");
  write_bytes(run / "store/profile/round_0/profile_topN.json", "{\"top_kernels\": []}");
  fs::create_symlink("store/env.json", run / "env_report.json");
  fs::create_directory_symlink("store/profile", run / "profile");
  auto c = read_eval_dir(run);
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(rel_paths(*c),
            (std::vector<std::string>{"env_report.json", "profile/round_0/profile_topN.json"}));
  EXPECT_EQ(c->files[0].content, "{}");
  EXPECT_EQ(c->files[0].kind.kind, "env_report");
  EXPECT_TRUE(c->refused.empty());
}

TEST(ReadEvalDir, RefusesLinksOutDanglingLinksLoopsAndSpecialFilesWithoutOpeningThem)
{
  TempDir tmp;
  const auto run = tmp / "run";
  write_bytes(run / "env_report.json", "{}");
  write_bytes(tmp / "outside/profile_topN.json", "{}");
  fs::create_directories(run / "profile/round_0");
  fs::create_symlink(tmp / "outside/profile_topN.json", run / "profile/round_0/profile_topN.json");
  fs::create_directory_symlink(tmp / "outside", run / "kernels");
  fs::create_symlink("missing.json", run / "workflow_return.json");
  fs::create_directory_symlink("../..", run / "profile/round_0/back");
  ASSERT_EQ(::mkfifo((run / "director_e2e_validation.json").c_str(), 0600), 0);
  // A socket, bound and left behind.
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = (run / "s.sock").string();
  ASSERT_LT(sock_path.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(sock);

  auto c = read_eval_dir(run);
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(rel_paths(*c), std::vector<std::string>{"env_report.json"});
  const std::string out = fs::canonical(tmp / "outside").string();
  EXPECT_EQ(
      refused(*c),
      (std::vector<std::string>{
          "director_e2e_validation.json: a FIFO",
          "kernels: symlink leaving the eval dir (→ " + out + ")",
          "profile/round_0/back: symlink loop (→ " + fs::canonical(run).string() + ")",
          "profile/round_0/profile_topN.json: symlink leaving the eval dir (→ " + out + "/profile_topN.json)",
          "s.sock: a socket",
          "workflow_return.json: symlink that resolves nowhere (No such file or directory)",
      }));
}

TEST(ReadEvalDir, RefusesAnArtifactOverTheLimitBeforeReadingIt)
{
  TempDir tmp;
  const auto run = tmp / "run";
  write_bytes(run / "env_report.json", std::string(200, ' ') + "{}");
  write_bytes(run / "notes.txt", std::string(5000, 'x')); // not an artifact: never read
  auto c = read_eval_dir(run, 202);
  ASSERT_TRUE(c) << c.error().describe();
  c = read_eval_dir(run, 201);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(c.error().message, "env_report.json is 202 bytes, over the limit of 201 bytes; not read");
}

TEST(ReadFile, RefusesFifosAndOversizeFiles)
{
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0600), 0);
  auto r = ingest::read_file(tmp / "fifo");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, (tmp / "fifo").string() + " is a FIFO, not a regular file");
  write_bytes(tmp / "big", std::string(3 << 20, 'x'));
  r = ingest::read_file(tmp / "big", 1 << 20);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            (tmp / "big").string() +
                " is 3145728 bytes (3.0 MiB), over the limit of 1048576 bytes (1.0 MiB); not read");
  r = ingest::read_file(tmp / "big");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), std::size_t{3} << 20U);
}

TEST(LooksLikeEvalDir, EarlyMilestoneFilesAndTheProducerNameCount)
{
  TempDir tmp;
  for (const char* marker : {"env_info.txt", "model_path.txt", "env_report.md", "env_report.json"}) {
    const auto dir = tmp / (std::string("d_") + marker);
    write_bytes(dir / marker, "x");
    EXPECT_TRUE(ingest::looks_like_eval_dir(dir)) << marker;
  }
  fs::create_directories(tmp / "d_baseline/baseline");
  EXPECT_TRUE(ingest::looks_like_eval_dir(tmp / "d_baseline"));
  fs::create_directories(tmp / "e2e_Qwen-Qwen3-32B_20260703_142210_9120_p0aa");
  EXPECT_TRUE(ingest::looks_like_eval_dir(tmp / "e2e_Qwen-Qwen3-32B_20260703_142210_9120_p0aa"));
  fs::create_directories(tmp / "e2e_m_20260703_142210");
  EXPECT_TRUE(ingest::looks_like_eval_dir(tmp / "e2e_m_20260703_142210"));
  // Knowledge and near misses.
  write_bytes(tmp / "learned/gemm.md", "x");
  EXPECT_FALSE(ingest::looks_like_eval_dir(tmp / "learned"));
  fs::create_directories(tmp / "e2e_m_2026073_142210");
  EXPECT_FALSE(ingest::looks_like_eval_dir(tmp / "e2e_m_2026073_142210"));
  fs::create_directories(tmp / "run_m_20260703_142210");
  EXPECT_FALSE(ingest::looks_like_eval_dir(tmp / "run_m_20260703_142210"));
  // A stage name marks a dir only as a directory: /etc holds a file `profile`.
  write_bytes(tmp / "etc/profile", "x");
  EXPECT_FALSE(ingest::looks_like_eval_dir(tmp / "etc"));
}

// classify_artifact over the layout of docs/artifacts.md, "The files, in the order a run writes them": kind,
// role, label and phase of every artifact, and near misses that are not read.
TEST(ClassifyArtifact, KindRoleLabelAndPhaseFromThePath)
{
  const auto kind = [](std::string_view rel) {
    const auto k = ingest::classify_artifact(rel);
    return k ? k->kind + "|" + k->role + "|" + k->label + "|" + k->phase : std::string("-");
  };
  EXPECT_EQ(kind("env_report.json"), "env_report|||");
  EXPECT_EQ(kind("director_e2e_validation.json"), "director_validation|||");
  EXPECT_EQ(kind("workflow_return.json"), "workflow_return|||");
  EXPECT_EQ(kind("env_info.txt"), "env_info|||");
  EXPECT_EQ(kind("kernels/gemm_task/roofline/install.json"), "roofline_install||gemm_task|");
  EXPECT_EQ(kind("a/env_info.txt"), "-");
  EXPECT_EQ(kind("kernels/gemm_task/install.json"), "-");
  EXPECT_EQ(kind("kernels/x/gemm_task/roofline/install.json"), "-");
  EXPECT_EQ(kind("baseline/bench_summary.json"), "bench_summary|baseline|baseline|");
  EXPECT_EQ(kind("validation/base/bench_summary.json"), "bench_summary|validation_base|base|");
  EXPECT_EQ(kind("validation/final/bench_summary.json"), "bench_summary|validation_final|final|");
  EXPECT_EQ(kind("validation/x/bench_summary.json"), "bench_summary|other|x|");
  EXPECT_EQ(kind("config/cfg2/bench_summary.json"), "bench_summary|config|cfg2|");
  EXPECT_EQ(kind("overlay/cand_a/ref/bench_summary.json"), "bench_summary|overlay_ref|cand_a|");
  EXPECT_EQ(kind("final/overlay/cand_a/cand2/bench_summary.json"), "bench_summary|overlay_cand|cand_a|");
  EXPECT_EQ(kind("final/bench/bench_summary.json"), "bench_summary|final|final|");
  EXPECT_EQ(kind("profile/round_12/profile_topN.json"), "profile_topn||12|");
  EXPECT_EQ(kind("profile/round_0/profile_roofline.json"), "profile_roofline||0|");
  EXPECT_EQ(kind("config/sweep_results.json"), "sweep_results|||");
  EXPECT_EQ(kind("overlay/cand_b/integrate_result.json"), "integrate_result||cand_b|");
  EXPECT_EQ(kind("final/overlay/cand_b/integrate_result.json"), "integrate_result||cand_b|");
  EXPECT_EQ(kind("kernels/gemm_task/opbench_result_try1.json"), "opbench_result||gemm_task|");
  EXPECT_EQ(kind("kernels/gemm_task/roofline/post_roofline.json"), "measured_roofline||gemm_task|post");
  EXPECT_EQ(kind("kernels/_exp/a/gemm_task/roofline/baseline/baseline_roofline.json"),
            "measured_roofline||gemm_task|baseline");
  // Deeper than the 16 components split without allocating: same rules.
  std::string deep = "kernels";
  for (int i = 0; i < 20; ++i) {
    deep += "/d" + std::to_string(i);
  }
  EXPECT_EQ(kind(deep + "/t_task/roofline/post_roofline.json"), "measured_roofline||t_task|post");
  EXPECT_EQ(kind(deep + "/post_roofline.json"), "-");
  // A bench directory's per-round file: read for the samples of a summary that lists none.
  EXPECT_EQ(kind("baseline/bench_runs.jsonl"), "bench_runs|baseline|baseline|");
  // Not read.
  for (const char* rel :
       {"", "/", "env_report.md", "baseline/x/bench_summary.json", "profile/round_0/profile_topN.md",
        "profile/r0/profile_topN.json", "overlay/x/ref/bench_summary.json",
        "overlay/cand_a/x/integrate_result.json", "kernels/t/opbench_result.txt",
        "roofline/post_roofline.json", "a/env_report.json"}) {
    EXPECT_EQ(kind(rel), "-") << rel;
  }
}

// directory_name: the name the user means, however the path is spelled.
TEST(DirectoryName, NamesTheDirectoryWhateverTheSpelling)
{
  EXPECT_EQ(ingest::directory_name("runs/e2e_x"), "e2e_x");
  EXPECT_EQ(ingest::directory_name("runs/e2e_x/"), "e2e_x");
  EXPECT_EQ(ingest::directory_name("runs/e2e_x/."), "e2e_x");
  EXPECT_EQ(ingest::directory_name("runs/e2e_x/sub/.."), "e2e_x");
  EXPECT_EQ(ingest::directory_name("/a//e2e_x"), "e2e_x");
  EXPECT_EQ(ingest::directory_name("e2e_x"), "e2e_x");
  EXPECT_EQ(ingest::directory_name("."), fs::current_path().filename().string());
}

TEST(DescribeSize, BytesThenBinaryUnits)
{
  EXPECT_EQ(ingest::describe_size(100), "100 bytes");
  EXPECT_EQ(ingest::describe_size(1024), "1024 bytes (1.0 KiB)");
  EXPECT_EQ(ingest::describe_size(std::uint64_t{2} << 30U), "2147483648 bytes (2.0 GiB)");
}

} // namespace rfdb::test
