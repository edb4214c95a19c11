// The shared text helpers of the playbook and the cards (see text.hpp).
#include "report/text.hpp"

#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rfdb::report {

std::string fixed(double value, int dp)
{
  const double scale = std::pow(10.0, dp);
  double r = std::round(value * scale) / scale;
  if (r == 0.0) {
    r = 0.0; // no "-0.000"
  }
  return fmt::format("{:.{}f}", r, dp);
}

std::string iso_range_text(const std::optional<double>& lo, const std::optional<double>& hi)
{
  if (!lo || !hi) {
    return "not measured";
  }
  const std::string a = fixed(*lo, 3);
  const std::string b = fixed(*hi, 3);
  return a == b ? a + "\u00d7" : fmt::format("{}\u2013{}\u00d7", a, b);
}

std::string e2e_range_text(const std::optional<double>& lo, const std::optional<double>& hi)
{
  if (!lo || !hi) {
    return "not measured";
  }
  const auto signed_pct = [](double v) {
    const std::string t = fixed(v, 2);
    return (t.front() == '-' ? t : "+" + t) + " %";
  };
  const std::string a = signed_pct(*lo);
  const std::string b = signed_pct(*hi);
  return a == b ? a : fmt::format("{} to {}", a, b);
}

std::string workload_text(const std::optional<int>& isl, const std::optional<int>& osl,
                          const std::optional<int>& conc)
{
  if (!isl && !osl && !conc) {
    return "";
  }
  const auto part = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
  return fmt::format("isl/osl/conc {}/{}/{}", part(isl), part(osl), part(conc));
}

std::string one_line(std::string_view text)
{
  return util::escape_for_display(util::collapse_spaces(text));
}

std::string short_identity(std::string_view identity)
{
  const std::size_t hash = identity.find('#');
  const std::size_t bar = identity.find('|', hash == std::string_view::npos ? 0 : hash);
  return std::string(
      hash == std::string_view::npos || bar == std::string_view::npos ? identity : identity.substr(0, bar));
}

std::string stars_text(int stars)
{
  std::string out;
  for (int i = 0; i < std::clamp(stars, 0, 3); ++i) {
    out += "\u2605";
  }
  return out;
}

namespace {

bool is_word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (static_cast<unsigned char>(c) >= 0x80);
}

std::string escape_word(std::string_view w, bool first)
{
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    const bool edge = i == 0 || i + 1 == w.size() || !is_word_char(w[i - 1]) || !is_word_char(w[i + 1]);
    const bool escape = std::string_view("\\`*[]<>|~@").find(c) != std::string_view::npos ||
                        (c == '_' && edge) || (c == '#' && first && i == 0);
    if (escape) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

} // namespace

std::string md_text(std::string_view text)
{
  const std::string line = one_line(text);
  std::string out;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t end = std::min(line.find(' ', pos), line.size());
    const std::string_view w = std::string_view(line).substr(pos, end - pos);
    const bool url = (w.rfind("http://", 0) == 0 || w.rfind("https://", 0) == 0) &&
                     w.find_first_of("<>`") == std::string_view::npos;
    out += url ? fmt::format("<{}>", w) : escape_word(w, pos == 0);
    if (end < line.size()) {
      out += ' ';
    }
    pos = end + 1;
  }
  return out;
}

std::string md_code(std::string_view text)
{
  const std::string t = one_line(text);
  if (t.empty()) {
    return "-";
  }
  if (t.find_first_of("`|") != std::string::npos) {
    return md_text(t);
  }
  return fmt::format("`{}`", t);
}

} // namespace rfdb::report
