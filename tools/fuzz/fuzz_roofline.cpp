// libFuzzer target: roofline-v1 baseline/post files (measured_roofline) and the analytic
// profile_roofline.json, through the one-parse reader (parse_artifact) and derive_run
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto text = rfdb::fuzz::as_text(data, size);
  rfdb::fuzz::parse_artifact_as("kernels/fused_moe_task/roofline/baseline_roofline.json", text);
  rfdb::fuzz::parse_artifact_as("kernels/fused_moe_task/roofline/post_roofline.json", text);
  rfdb::fuzz::parse_artifact_as("profile/round_0/profile_roofline.json", text);
  return 0;
}
