// libFuzzer target: an _inbox proposal (_inbox/<run_id>.json[.drained]), parse_proposal
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::vector<rfdb::ingest::knowledge::Warning> warnings;
  auto findings = rfdb::ingest::knowledge::parse_proposal("learned/_inbox/e2e-fuzz-20260101.json.drained",
                                                          rfdb::fuzz::as_text(data, size), warnings);
  std::size_t n = rfdb::fuzz::touch(warnings);
  if (findings) {
    for (const auto& f : *findings) {
      n += rfdb::fuzz::touch(f);
    }
  } else {
    n += rfdb::fuzz::touch(findings.error().describe());
  }
  rfdb::fuzz::consume(n);
  return 0;
}
