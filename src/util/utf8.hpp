// UTF-8 validation (utfcpp) and code-point counting, cutting and truncation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rfdb::util {

// Byte offset of the first ill-formed sequence in `text` (stray continuation
// byte, overlong form, surrogate, value above U+10FFFF or a sequence cut
// short), or nullopt when `text` is well-formed UTF-8. NUL is well-formed.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

// Code points in `text`: bytes that are not UTF-8 continuation bytes
// (10xxxxxx), so ill-formed input still gets a count.
std::size_t utf8_length(std::string_view text);

// The first `n` code points of `text` (all of it when it has fewer).
std::string utf8_prefix(std::string_view text, std::size_t n);

// The largest offset ≤ `offset` (clamped to text.size()) that does not fall
// inside a code point: where a byte-limited cut of `text` may end.
std::size_t utf8_floor(std::string_view text, std::size_t offset);

// `text` when it has at most `max_chars` code points, else its first
// max_chars − 1 code points and "…" (U+2026); "" for max_chars 0.
std::string truncate_utf8(std::string_view text, std::size_t max_chars);

// `text` safe to print and to put in JSON: each byte of an ill-formed
// sequence, of each ASCII control character (U+0000–U+001F, U+007F) and of
// each C1 control (U+0080–U+009F, 8-bit CSI among them: "\xC2\x9B") is
// written as \xHH; well-formed text without controls is returned unchanged.
// The result holds no control character, so escaping it again changes nothing.
std::string escape_for_display(std::string_view text);

} // namespace rfdb::util
