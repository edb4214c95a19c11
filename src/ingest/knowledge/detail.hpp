// Helpers shared by the knowledge parsers (ingest/knowledge/*.cpp).
// Internal: not part of the ingest API (rfdb::ingest::knowledge::detail).
#pragma once

#include "ingest/knowledge/knowledge.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest::knowledge::detail {

// One line of a file: 1-based number, text without "\n" / "\r\n".
struct Line {
  int number = 0;
  std::string_view text;
};

std::vector<Line> split_lines(std::string_view content);
std::string_view trim(std::string_view s);
std::string to_lower_ascii(std::string_view s);
bool starts_with_ci(std::string_view s, std::string_view prefix);

// Base name of a relative or absolute path ("learned/x.md" → "x.md").
std::string base_name(std::string_view path);

// Fail with invalid_input "file:line: invalid UTF-8" at the first bad byte.
Result<void> check_utf8(std::string_view file_name, std::string_view content);

// The first `n` code points of valid UTF-8 `s`.
std::string utf8_prefix(std::string_view s, std::size_t n);

// kb.py counter coercion: an optionally signed integer, else 0 (`ok` false).
int coerce_counter(std::string_view raw, bool& ok);

// A YYYY-MM-DD date at the start of `raw` (rest must be blank or start with
// a space); empty when there is none.
std::string leading_date(std::string_view raw);

void add_warning(std::vector<Warning>& out, Severity severity, std::string_view file, int line,
                 std::string message);

// Everything the reuse key of a card or proposal is derived from.
struct KeySources {
  std::string_view kernel_class; // `kernel_class` field
  std::string_view regime;       // `regime` field
  std::string_view key;          // `key` field
  std::string_view platforms;    // `platforms` field (list text)
  std::string_view gfx;          // a `gfx` field, if any
  std::string_view file_name;
};

// Fill kernel_class_raw, op_class, gfx, regime_raw and regime of `f`
// (rules in knowledge.cpp); notes go to `warnings` against `line`.
void derive_reuse_key(Finding& f, const KeySources& src, std::vector<Warning>& warnings, int line);

// Set stars from a confidence value, warning when it holds no ★ or more than 3.
void apply_confidence(Finding& f, std::string_view confidence, std::vector<Warning>& warnings,
                      std::string_view file, int line);

// Set iso_*/e2e_* from f.effect.
void apply_effect_numbers(Finding& f);

} // namespace rfdb::ingest::knowledge::detail
