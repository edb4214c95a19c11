// libFuzzer target: the Learned lines of a legacy backend_playbook.md,
// parse_legacy_playbook
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::vector<rfdb::ingest::knowledge::Warning> warnings;
  auto findings = rfdb::ingest::knowledge::parse_legacy_playbook("backend_playbook.md",
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
