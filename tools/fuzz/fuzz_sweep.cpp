// libFuzzer target: config/sweep_results.json through the one-parse reader
// (parse_artifact) and derive_run
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  rfdb::fuzz::parse_artifact_as("config/sweep_results.json", rfdb::fuzz::as_text(data, size));
  return 0;
}
