// ASCII text helpers (see util/text.hpp).
#include "util/text.hpp"

namespace rfdb::util {

namespace {

constexpr bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

} // namespace

std::string_view trim(std::string_view s)
{
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::string lower_ascii(std::string_view s)
{
  std::string out(s);
  for (char& c : out) {
    c = lower_ascii(c);
  }
  return out;
}

bool starts_with_ci(std::string_view s, std::string_view prefix)
{
  if (s.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower_ascii(s[i]) != lower_ascii(prefix[i])) {
      return false;
    }
  }
  return true;
}

std::vector<std::string_view> split_lines(std::string_view text)
{
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

std::string collapse_spaces(std::string_view text)
{
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      space = false;
    }
    out += c;
  }
  return out;
}

} // namespace rfdb::util
