// libFuzzer target: the eval-dir JSON reader ingest parses every artifact with
// once (parse_json_document: the simdjson fast path, else the pre-lexer and
// nlohmann), and find_duplicate_keys. Differential: whenever the fast path
// takes a text, the slow path must take it too and give the identical document
// (same nlohmann type at every node, same numbers, no repeated key), since
// ingest's results may not depend on which path read a file
// (tools/fuzz/README.md).
#include "fuzz/fuzz_util.hpp"

#include "ingest/json_keys.hpp"
#include "ingest/json_util.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {

using rfdb::ingest::json;

// The fast and slow documents differ: print where and abort (a finding).
[[noreturn]] void paths_differ(const std::string& where, const json& fast, const json& slow)
{
  std::fprintf(stderr, "fast and slow JSON paths differ at '%s': %s vs %s\n", where.c_str(),
               fast.dump().substr(0, 200).c_str(), slow.dump().substr(0, 200).c_str());
  std::abort();
}

void require_identical(const json& a, const json& b, const std::string& where)
{
  if (a.type() != b.type()) {
    paths_differ(where, a, b);
  }
  if (a.is_object()) {
    if (a.size() != b.size()) {
      paths_differ(where, a, b);
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      const auto other = b.find(it.key());
      if (other == b.end()) {
        paths_differ(where + "/" + it.key(), a, b);
      }
      require_identical(*it, *other, where + "/" + it.key());
    }
  } else if (a.is_array()) {
    if (a.size() != b.size()) {
      paths_differ(where, a, b);
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      require_identical(a[i], b[i], where + "/" + std::to_string(i));
    }
  } else if (a.is_number_float()) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    if (std::signbit(x) != std::signbit(y) || x != y) {
      paths_differ(where, a, b);
    }
  } else if (a != b || a.dump() != b.dump()) {
    paths_differ(where, a, b);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto text = rfdb::fuzz::as_text(data, size);
  std::size_t n = 0;
  auto parsed = rfdb::ingest::parse_json_document(text);
  if (parsed) {
    n += parsed->doc.size() + parsed->duplicates.size();
    for (const auto& d : parsed->duplicates) {
      n += rfdb::fuzz::touch(d.pointer) + rfdb::fuzz::touch(d.key) + rfdb::fuzz::touch(d.first_value);
    }
  } else {
    n += rfdb::fuzz::touch(parsed.error().describe());
  }
  if (auto fast = rfdb::ingest::detail::parse_json_fast(text)) {
    auto slow = rfdb::ingest::detail::parse_json_slow(text);
    if (!slow) {
      std::fprintf(stderr, "the fast JSON path took a text the slow path refuses: %s\n",
                   slow.error().describe().c_str());
      std::abort();
    }
    if (!slow->duplicates.empty()) {
      std::fprintf(stderr, "the fast JSON path took a text with a repeated key\n");
      std::abort();
    }
    require_identical(*fast, slow->doc, "");
  }
  auto duplicates = rfdb::ingest::find_duplicate_keys(text);
  n += duplicates ? duplicates->size() : rfdb::fuzz::touch(duplicates.error().describe());
  rfdb::fuzz::consume(n);
  return 0;
}
