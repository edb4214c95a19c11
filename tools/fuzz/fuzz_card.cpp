// libFuzzer target: an experience card (front matter and body), parse_card
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::vector<rfdb::ingest::knowledge::Warning> warnings;
  auto card = rfdb::ingest::knowledge::parse_card("learned/fuzz-moe-gfx942-decode.md",
                                                  rfdb::fuzz::as_text(data, size), warnings);
  std::size_t n = rfdb::fuzz::touch(warnings);
  n += card ? rfdb::fuzz::touch(*card) : rfdb::fuzz::touch(card.error().describe());
  rfdb::fuzz::consume(n);
  return 0;
}
