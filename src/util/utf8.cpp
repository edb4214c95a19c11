// UTF-8 helpers (see util/utf8.hpp); validation is utfcpp's.
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utf8.h>

namespace rfdb::util {

namespace {

constexpr bool is_continuation(char c)
{
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

// Byte offset where code point number `n` (0-based) starts, or text.size().
std::size_t offset_of_code_point(std::string_view text, std::size_t n)
{
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_continuation(text[i]) && seen++ == n) {
      return i;
    }
  }
  return text.size();
}

} // namespace

std::optional<std::size_t> find_invalid_utf8(std::string_view text)
{
  const auto bad = utf8::find_invalid(text.begin(), text.end());
  if (bad == text.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(bad - text.begin());
}

std::size_t utf8_length(std::string_view text)
{
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(c); }));
}

std::string utf8_prefix(std::string_view text, std::size_t n)
{
  return std::string(text.substr(0, offset_of_code_point(text, n)));
}

std::size_t utf8_floor(std::string_view text, std::size_t offset)
{
  std::size_t cut = std::min(offset, text.size());
  while (cut > 0 && cut < text.size() && is_continuation(text[cut])) {
    --cut;
  }
  return cut;
}

std::string truncate_utf8(std::string_view text, std::size_t max_chars)
{
  if (max_chars == 0) {
    return "";
  }
  if (offset_of_code_point(text, max_chars) == text.size()) {
    return std::string(text);
  }
  return utf8_prefix(text, max_chars - 1) + "\u2026";
}

std::string escape_for_display(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t bad = find_invalid_utf8(text).value_or(text.size());
    for (std::size_t i = 0; i < bad; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      // U+0080–U+009F (C1 controls, CSI among them) are 0xC2 0x80–0x9F.
      const bool c1 = c == 0xC2U && i + 1 < bad && static_cast<unsigned char>(text[i + 1]) <= 0x9FU;
      if (c < 0x20U || c == 0x7FU) {
        out += fmt::format("\\x{:02X}", c);
      } else if (c1) {
        out += fmt::format("\\x{:02X}\\x{:02X}", c, static_cast<unsigned char>(text[i + 1]));
        ++i;
      } else {
        out += text[i];
      }
    }
    if (bad == text.size()) {
      break;
    }
    out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[bad]));
    text.remove_prefix(bad + 1);
  }
  return out;
}

} // namespace rfdb::util
