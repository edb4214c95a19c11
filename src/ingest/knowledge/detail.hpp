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

// The numbered lines of `content` (util::split_lines); an empty file is one
// empty line.
std::vector<Line> split_lines(std::string_view content);

// Base name of a relative or absolute path ("learned/x.md" → "x.md").
std::string base_name(std::string_view path);

// Fail with invalid_input "file:line: invalid UTF-8" at the first bad byte.
Result<void> check_utf8(std::string_view file_name, std::string_view content);

// kb.py counter coercion: an optionally signed integer, else 0 (`ok` false).
int coerce_counter(std::string_view raw, bool& ok);

// A valid YYYY-MM-DD date (util::parse_iso_date) at the start of `raw`
// (rest must be blank or start with a space); empty when there is none.
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

// Set classification, its reason and iso_*/e2e_* (the figures it read) from
// the finding's own text (domain::classify_knowledge). Call last: it reads
// name, type, lifecycle, fields, effect, lever and text.
void classify(Finding& f);

} // namespace rfdb::ingest::knowledge::detail
