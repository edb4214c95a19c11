// ASCII text helpers: trim, case folding, case-insensitive prefix, join and
// line splitting. Byte-oriented; knows nothing of rfdb.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::util {

// `s` without leading and trailing ' ', '\t', '\r', '\n' (a view into `s`).
std::string_view trim(std::string_view s);

// Copy of `s` with A–Z mapped to a–z; every other byte (UTF-8 included) kept.
std::string lower_ascii(std::string_view s);

// One byte with A–Z mapped to a–z.
constexpr char lower_ascii(char c)
{
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// True when `s` begins with `prefix`, ignoring ASCII case on both sides.
bool starts_with_ci(std::string_view s, std::string_view prefix);

// `text` on one line: every run of ASCII whitespace (space, \t, \n, \r, \f,
// \v) becomes one space, leading and trailing whitespace dropped
// ("  a \n b " → "a b").
std::string collapse_spaces(std::string_view text);

// The items of `range` formatted with {} and separated by `sep`
// (join({"a", "b"}, ", ") == "a, b"; an empty range gives "").
template <typename Range> std::string join(const Range& range, std::string_view sep)
{
  return fmt::format("{}", fmt::join(range, sep));
}

// The lines of `text`: split at '\n', a trailing '\r' removed from each; a
// final '\n' does not start another line, so "" and "a\n" give {} and {"a"}.
// The views point into `text`.
std::vector<std::string_view> split_lines(std::string_view text);

} // namespace rfdb::util
