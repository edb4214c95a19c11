// libFuzzer target: INDEX.md cross-checked against a fixed card set, cross_check_index
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  // Card names of the fixtures (tests/fixtures/knowledge/learned), so seeds list some and miss others.
  static const std::vector<std::string> cards = {"learned/moe-bf16-tune-gfx942.md",
                                                 "learned/paged-attn-nonpow2-gfx942.md",
                                                 "learned/split-k-skinny-gemm-gfx950.md",
                                                 "learned/method-e2e-ab-harness.md",
                                                 "x.md",
                                                 ".md"};
  auto check =
      rfdb::ingest::knowledge::cross_check_index("learned/INDEX.md", rfdb::fuzz::as_text(data, size), cards);
  std::size_t n = rfdb::fuzz::touch(check.warnings) + check.bullets_without_card.size();
  for (const auto& s : check.listed) {
    n += rfdb::fuzz::touch(s);
  }
  for (const auto& s : check.unlisted) {
    n += rfdb::fuzz::touch(s);
  }
  for (const auto& d : check.dangling) {
    n += rfdb::fuzz::touch(d.card) + static_cast<std::size_t>(d.line);
  }
  rfdb::fuzz::consume(n);
  return 0;
}
