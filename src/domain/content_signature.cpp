// GEAK's implementation signatures (see domain/content_signature.hpp).
#include "domain/content_signature.hpp"

#include "util/digest.hpp"
#include "util/hex.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>

namespace rfdb::domain {
namespace {

// Length in bytes of the Python line boundary at s[i], or 0. Python's str.splitlines()
// boundaries: \n, \r\n, \r, \v, \f, \x1c, \x1d, \x1e, U+0085, U+2028, U+2029.
std::size_t line_break_at(std::string_view s, std::size_t i)
{
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == '\r') {
    return i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
  }
  if (c == '\n' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e) {
    return 1;
  }
  if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) {
    return 2;
  }
  if (c == 0xe2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80) {
    const auto c2 = static_cast<unsigned char>(s[i + 2]);
    if (c2 == 0xa8 || c2 == 0xa9) {
      return 3;
    }
  }
  return 0;
}

// Length in bytes of a whitespace character (Python's `\s` on str) at s[i], or 0: ASCII
// space, \t..\r, \x1c..\x1f, and the UTF-8 spellings of U+0085, U+00A0, U+1680, U+2000..U+200A,
// U+2028, U+2029, U+202F, U+205F and U+3000.
std::size_t space_at(std::string_view s, std::size_t i)
{
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)) {
    return 1;
  }
  auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0U; };
  if (c == 0xc2 && (at(1) == 0x85 || at(1) == 0xa0)) {
    return 2;
  }
  if (c == 0xe1 && at(1) == 0x9a && at(2) == 0x80) {
    return 3;
  }
  if (c == 0xe2 && at(1) == 0x80 &&
      ((at(2) >= 0x80 && at(2) <= 0x8a) || at(2) == 0xa8 || at(2) == 0xa9 || at(2) == 0xaf)) {
    return 3;
  }
  if (c == 0xe2 && at(1) == 0x81 && at(2) == 0x9f) {
    return 3;
  }
  if (c == 0xe3 && at(1) == 0x80 && at(2) == 0x80) {
    return 3;
  }
  return 0;
}

bool is_header(std::string_view line)
{
  static constexpr std::array<std::string_view, 12> k_headers = {
      "+++",          "---",         "diff ",   "index ",   "@@",       "new file",
      "deleted file", "similarity ", "rename ", "old mode", "new mode", "Binary files"};
  return std::any_of(k_headers.begin(), k_headers.end(),
                     [&](std::string_view h) { return line.starts_with(h); });
}

// The text after a line's sign with whitespace runs collapsed to one space, trimmed.
std::string collapsed(std::string_view body)
{
  std::string out;
  out.reserve(body.size());
  bool pending_space = false;
  for (std::size_t i = 0; i < body.size();) {
    if (const auto n = space_at(body, i); n > 0) {
      pending_space = !out.empty();
      i += n;
      continue;
    }
    if (pending_space) {
      out.push_back(' ');
      pending_space = false;
    }
    out.push_back(body[i]);
    ++i;
  }
  return out;
}

std::string signature(std::string_view prefix, std::string_view bytes)
{
  return std::string(prefix) + util::hex_encode(util::sha256(bytes)).substr(0, 32);
}

} // namespace

std::string content_signature(std::string_view diff)
{
  std::string joined;
  bool any = false;
  std::size_t start = 0;
  auto take = [&](std::string_view line) {
    if (line.empty() || is_header(line) || (line[0] != '+' && line[0] != '-')) {
      return;
    }
    const std::string text = collapsed(line.substr(1));
    if (text.empty()) {
      return;
    }
    if (any) {
      joined.push_back('\n');
    }
    joined.push_back(line[0]);
    joined += text;
    any = true;
  };
  for (std::size_t i = 0; i < diff.size();) {
    if (const auto n = line_break_at(diff, i); n > 0) {
      take(diff.substr(start, i - start));
      i += n;
      start = i;
      continue;
    }
    ++i;
  }
  if (start < diff.size()) {
    take(diff.substr(start));
  }
  return any ? signature("csha:", joined) : std::string();
}

std::string artifact_signature(std::vector<ArtifactFile> files)
{
  if (files.empty()) {
    return {};
  }
  std::sort(files.begin(), files.end(),
            [](const ArtifactFile& a, const ArtifactFile& b) { return a.stored_name < b.stored_name; });
  std::string fed;
  for (const auto& f : files) {
    fed += f.stored_name;
    fed.push_back('\0');
    fed += util::sha256(f.bytes);
  }
  return signature("asha:", fed);
}

std::string geak_safe_name(std::string_view name)
{
  std::string out;
  bool in_run = false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x80 && std::isalnum(u) != 0) || c == '.' || c == '_' || c == '-') {
      out.push_back(c);
      in_run = false;
    } else if (!in_run) {
      out.push_back('-');
      in_run = true;
    }
  }
  const auto first = out.find_first_not_of("-.");
  if (first == std::string::npos) {
    return "x";
  }
  out = out.substr(first, out.find_last_not_of("-.") - first + 1);
  if (out.size() > 80) {
    out.resize(80);
  }
  return out;
}

} // namespace rfdb::domain
