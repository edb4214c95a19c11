// libFuzzer target: profile_topN.json, both producer variants, through the one-parse reader
// (parse_artifact) and derive_run
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  rfdb::fuzz::parse_artifact_as("profile/round_0/profile_topN.json", rfdb::fuzz::as_text(data, size));
  return 0;
}
