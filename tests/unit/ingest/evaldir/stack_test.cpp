// The stack of a run from its files (ingest/evaldir/stack.hpp): env_info.txt
// lines, the roofline tool, the install record, and which source wins.
#include "ingest/evaldir/stack.hpp"

#include <gtest/gtest.h>

using namespace rfdb;
using namespace rfdb::ingest;

namespace {

const store::StackRow* row(const std::vector<store::StackRow>& rows, const std::string& package)
{
  for (const auto& r : rows) {
    if (r.package == package) {
      return &r;
    }
  }
  return nullptr;
}

} // namespace

TEST(StackFromEnvInfo, ReadsPackageLinesOnly)
{
  const auto c =
      stack_from_env_info("torch 2.9.1+rocm7.1.1\nsglang 0.5.17\nsgl-kernel 0.3.21\n"
                          "aiter 0.1.7.post1\ntriton 3.5.0\n"
                          "GPU[2-3]: gfx950 AMD Instinct MI355X (256 CUs)\nattention backend: triton\n"
                          "VLLM_ROCM_USE_AITER=1\nFlyDSL==0.2.1\r\nquantization: fp8 x\n",
                          "env_info.txt");
  std::vector<std::string> names;
  for (const auto& r : c.packages) {
    names.push_back(r.package + " " + r.raw + " " + r.release.value_or("-"));
    EXPECT_EQ(r.source, "env_info.txt");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"torch 2.9.1+rocm7.1.1 2.9.1", "sglang 0.5.17 0.5.17",
                                             "sgl-kernel 0.3.21 0.3.21", "aiter 0.1.7.post1 0.1.7",
                                             "triton 3.5.0 3.5.0", "flydsl 0.2.1 0.2.1"}));
}

TEST(AssembleStack, BackendFromEnvReportRocmFromTorchThenBackendThenInstallPath)
{
  store::EnvReport env;
  env.backend = "vLLM";
  env.backend_version = "0.26.1.dev37+g9c1d2e4.rocm712";
  // env_info says another vllm: env_report.json wins; no torch: rocm from the backend.
  std::vector<SourcedClues> files{
      {"env_info.txt", stack_from_env_info("vllm 0.1\ntriton 3.5.1\n", "env_info.txt")}};
  auto rows = assemble_stack(env, "env_report.json", files);
  ASSERT_NE(row(rows, "vllm"), nullptr);
  EXPECT_EQ(row(rows, "vllm")->raw, "0.26.1.dev37+g9c1d2e4.rocm712");
  EXPECT_EQ(row(rows, "vllm")->source, "env_report.json");
  ASSERT_NE(row(rows, "rocm"), nullptr);
  EXPECT_EQ(row(rows, "rocm")->release, "7.1.2");
  EXPECT_EQ(row(rows, "rocm")->via, "vllm");
  EXPECT_EQ(row(rows, "rocprof-compute"), nullptr); // no roofline: never guessed

  // No local version anywhere: rocm from the install path; the profiler is its path.
  env.backend_version = "0.26.1";
  const auto install = nlohmann::json::parse(R"({"attempts": [
      {"status": "failed", "reason": "no network"},
      {"status": "ok", "path": "/opt/rocm-7.1.1/bin/rocprof-compute"}], "status": "ok"})");
  files.push_back({"kernels/t_task/roofline/install.json",
                   stack_from_install(install, "kernels/t_task/roofline/install.json")});
  rows = assemble_stack(env, "env_report.json", files);
  ASSERT_NE(row(rows, "rocm"), nullptr);
  EXPECT_EQ(row(rows, "rocm")->release, "7.1.1");
  EXPECT_EQ(row(rows, "rocm")->via, "install path");
  ASSERT_NE(row(rows, "rocprof-compute"), nullptr);
  EXPECT_EQ(row(rows, "rocprof-compute")->raw, "/opt/rocm-7.1.1/bin/rocprof-compute");
  EXPECT_FALSE(row(rows, "rocprof-compute")->release);

  // A roofline document's tool_version names the profiler over any path.
  const auto doc = nlohmann::json::parse(R"({"tool": {"path": "/opt/rocm/bin/rocprof-compute",
      "version": {"text": "rocprofiler-compute version: 3.4.0"}}})");
  files.push_back({"kernels/t_task/roofline/post_roofline.json",
                   stack_from_roofline(doc, "kernels/t_task/roofline/post_roofline.json")});
  rows = assemble_stack(env, "env_report.json", files);
  EXPECT_EQ(row(rows, "rocprof-compute")->release, "3.4.0");
  EXPECT_EQ(row(rows, "rocprof-compute")->source, "kernels/t_task/roofline/post_roofline.json");

  // No backend version, no files: nothing.
  EXPECT_TRUE(assemble_stack(store::EnvReport{}, "env_report.json", {}).empty());
}
