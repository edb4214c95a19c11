// libFuzzer target: the summaries (integrate_result.json, opbench_result.json,
// bench_summary.json, and the run-level env_report.json and
// director_e2e_validation.json), through the one-parse reader (parse_artifact) and derive_run
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto text = rfdb::fuzz::as_text(data, size);
  rfdb::fuzz::parse_artifact_as("overlay/cand_fused_moe_triton/integrate_result.json", text);
  rfdb::fuzz::parse_artifact_as("kernels/fused_moe_task/opbench_result.json", text);
  rfdb::fuzz::parse_artifact_as("overlay/cand_fused_moe_triton/bench/bench_summary.json", text);
  rfdb::fuzz::parse_artifact_as("env_report.json", text);
  rfdb::fuzz::parse_artifact_as("director_e2e_validation.json", text);
  return 0;
}
