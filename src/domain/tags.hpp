// Run tags (issue 33): user metadata `key=value` on a run — quantization,
// tp, architecture family … — set by `rfdb tag`, `rfdb untag` and `rfdb
// ingest --tag`, and matched by `rfdb runs --tag`. Tags never change priors,
// the report or derived rows. Stored in run_tags / tag_log (migration 0019).
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// The longest key and value, in bytes.
inline constexpr std::size_t k_tag_key_max_bytes = 64;
inline constexpr std::size_t k_tag_value_max_bytes = 256;

struct Tag {
  std::string key;   // letters, digits, `_`, `-`, `.`; starts with a letter or digit
  std::string value; // non-blank UTF-8 without control characters
  friend bool operator==(const Tag&, const Tag&) = default;
};

// Why `key` cannot be a tag key, or nullopt: empty, longer than
// k_tag_key_max_bytes, a byte outside [A-Za-z0-9_.-], or a first byte that
// is not a letter or digit.
std::optional<std::string> tag_key_problem(std::string_view key);
// Why `value` cannot be a tag value, or nullopt: empty or only whitespace,
// longer than k_tag_value_max_bytes, not valid UTF-8, or holding a control
// character (a tab or newline included).
std::optional<std::string> tag_value_problem(std::string_view value);

// "key=value" (split at the first `=`; the value may hold more) → Tag.
// Errors: usage, naming the text and what is wrong with it.
Result<Tag> parse_tag(std::string_view text);
// Several "key=value" texts, in order; a key given twice is refused (which
// value would hold?). Errors: usage.
Result<std::vector<Tag>> parse_tags(const std::vector<std::string>& texts);

// Does a run carrying `tags` hold every one of `wanted` (same key, same
// value, case-sensitive)? True for an empty `wanted`.
bool tags_match(const std::vector<Tag>& tags, const std::vector<Tag>& wanted);

// "key=value, key=value" in the given order; "" for none.
std::string format_tags(const std::vector<Tag>& tags);

} // namespace rfdb::domain
