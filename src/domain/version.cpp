// PEP 440 versions, ROCm from a local version or install path, `--stack` specifiers (see version.hpp).
#include "domain/version.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <compare>
#include <regex>
#include <tuple>

namespace rfdb::domain {

namespace {

std::string lower(std::string_view s)
{
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s)
{
  const auto* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) {
    return {};
  }
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// A non-negative decimal; nullopt on overflow or no digits.
std::optional<std::int64_t> to_int(std::string_view s)
{
  std::int64_t v = 0;
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return v;
}

// packaging's VERSION_PATTERN (PEP 440 appendix B), ECMAScript groups:
// 1 epoch, 2 release, 3 pre letter, 4 pre number, 5 post "-N" number,
// 6 post letter, 7 post number, 8 dev, 9 dev number, 10 local.
const std::regex& version_pattern()
{
  static const std::regex re(R"(v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*))"
                             R"((?:[-_.]?(alpha|beta|preview|pre|rc|a|b|c)[-_.]?([0-9]+)?)?)"
                             R"((?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?)"
                             R"((?:[-_.]?(dev)[-_.]?([0-9]+)?)?)"
                             R"((?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?)",
                             std::regex::ECMAScript | std::regex::optimize);
  return re;
}

std::vector<std::string> split_labels(std::string_view s)
{
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '.' || c == '-' || c == '_') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(std::move(cur));
  return out;
}

std::string join(const std::vector<std::int64_t>& parts)
{
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : ".") + std::to_string(parts[i]);
  }
  return out;
}

bool all_digits(std::string_view s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Release compared with trailing zeros ignored.
std::strong_ordering compare_release(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b)
{
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t x = i < a.size() ? a[i] : 0;
    const std::int64_t y = i < b.size() ? b[i] : 0;
    if (x != y) {
      return x <=> y;
    }
  }
  return std::strong_ordering::equal;
}

// packaging's _cmpkey for pre/post/dev, as (rank, kind, number) triples:
// rank -1 = before everything, 1 = after everything, 0 = the value.
struct Slot {
  int rank = 0;
  std::int64_t kind = 0;
  std::int64_t number = 0;
  friend std::strong_ordering operator<=>(const Slot& a, const Slot& b)
  {
    return std::tie(a.rank, a.kind, a.number) <=> std::tie(b.rank, b.kind, b.number);
  }
};

Slot pre_slot(const Pep440Version& v)
{
  if (!v.pre && !v.post && v.dev) {
    return {-1, 0, 0}; // 1.0.dev0 sorts before 1.0a0
  }
  if (!v.pre) {
    return {1, 0, 0};
  }
  return {0, static_cast<std::int64_t>(v.pre->kind), v.pre->number};
}

Slot post_slot(const Pep440Version& v)
{
  return v.post ? Slot{0, 0, *v.post} : Slot{-1, 0, 0};
}

Slot dev_slot(const Pep440Version& v)
{
  return v.dev ? Slot{0, 0, *v.dev} : Slot{1, 0, 0};
}

// Local labels: numeric ones compare as numbers and sort after alphanumeric
// ones; a shorter prefix sorts first; no local sorts before any.
std::strong_ordering compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b)
{
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool na = all_digits(a[i]);
    const bool nb = all_digits(b[i]);
    if (na != nb) {
      return na ? std::strong_ordering::greater : std::strong_ordering::less;
    }
    if (na) {
      // Compare as numbers without overflow: strip leading zeros, then length, then text.
      auto strip = [](const std::string& s) {
        const auto p = s.find_first_not_of('0');
        return p == std::string::npos ? std::string() : s.substr(p);
      };
      const std::string x = strip(a[i]);
      const std::string y = strip(b[i]);
      if (x.size() != y.size()) {
        return x.size() <=> y.size();
      }
      if (const auto c = x.compare(y); c != 0) {
        return c <=> 0;
      }
    } else if (const auto c = a[i].compare(b[i]); c != 0) {
      return c <=> 0;
    }
  }
  return a.size() <=> b.size();
}

std::strong_ordering compare_public(const Pep440Version& a, const Pep440Version& b)
{
  if (a.epoch != b.epoch) {
    return a.epoch <=> b.epoch;
  }
  if (const auto c = compare_release(a.release, b.release); std::is_neq(c)) {
    return c;
  }
  if (const auto c = pre_slot(a) <=> pre_slot(b); std::is_neq(c)) {
    return c;
  }
  if (const auto c = post_slot(a) <=> post_slot(b); std::is_neq(c)) {
    return c;
  }
  return dev_slot(a) <=> dev_slot(b);
}

// "7.1.2" from a label's version part: dotted digits, or 2–3 compact digits.
std::optional<std::string> rocm_digits(std::string_view s)
{
  if (s.empty()) {
    return std::nullopt;
  }
  if (s.find('.') != std::string_view::npos) {
    for (const auto& part : split_labels(s)) {
      if (!all_digits(part)) {
        return std::nullopt;
      }
    }
    return std::string(s);
  }
  if (all_digits(s) && (s.size() == 2 || s.size() == 3)) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      out += (i == 0 ? "" : ".") + std::string(1, s[i]);
    }
    return out;
  }
  return std::nullopt;
}

} // namespace

std::string Pep440Version::release_text() const
{
  return join(release);
}

std::string Pep440Version::public_text() const
{
  std::string out = epoch != 0 ? fmt::format("{}!", epoch) : std::string();
  out += release_text();
  if (pre) {
    static constexpr std::string_view k_names[] = {"a", "b", "rc"};
    out += fmt::format("{}{}", k_names[static_cast<int>(pre->kind)], pre->number);
  }
  if (post) {
    out += fmt::format(".post{}", *post);
  }
  if (dev) {
    out += fmt::format(".dev{}", *dev);
  }
  return out;
}

std::string Pep440Version::local_text() const
{
  std::string out;
  for (std::size_t i = 0; i < local.size(); ++i) {
    out += (i == 0 ? "" : ".") + local[i];
  }
  return out;
}

std::strong_ordering operator<=>(const Pep440Version& a, const Pep440Version& b)
{
  if (const auto c = compare_public(a, b); std::is_neq(c)) {
    return c;
  }
  return compare_local(a.local, b.local);
}

bool operator==(const Pep440Version& a, const Pep440Version& b)
{
  return std::is_eq(a <=> b);
}

std::strong_ordering compare(const Pep440Version& a, const Pep440Version& b)
{
  return a <=> b;
}

Result<Pep440Version> parse_version(std::string_view text)
{
  auto bad = [&](std::string_view why) {
    const std::string shown = text.size() > 40
                                  ? fmt::format("{}… ({} characters)", text.substr(0, 40), text.size())
                                  : std::string(text);
    return fail(ErrorCode::invalid_input, fmt::format("'{}' is not a PEP 440 version{}", shown, why));
  };
  // std::regex matches by recursion: a string of tens of thousands of characters overflows the
  // stack. No real version comes near the cap.
  if (text.size() > k_max_version_chars) {
    return bad(fmt::format(" (longer than {} characters)", k_max_version_chars));
  }
  const std::string norm = lower(trim(text));
  std::smatch m;
  if (norm.empty() || !std::regex_match(norm, m, version_pattern())) {
    return bad("");
  }
  Pep440Version v;
  v.raw = std::string(text);
  auto number = [&](std::size_t group, std::int64_t fallback) -> std::optional<std::int64_t> {
    return m[group].matched ? to_int(m[group].str()) : std::optional(fallback);
  };
  const auto epoch = number(1, 0);
  if (!epoch) {
    return bad(" (number too large)");
  }
  v.epoch = *epoch;
  for (const auto& part : split_labels(m[2].str())) {
    const auto n = to_int(part);
    if (!n) {
      return bad(" (number too large)");
    }
    v.release.push_back(*n);
  }
  if (m[3].matched) {
    const std::string l = m[3].str();
    const PreKind kind = (l == "a" || l == "alpha")  ? PreKind::a
                         : (l == "b" || l == "beta") ? PreKind::b
                                                     : PreKind::rc; // rc, c, pre, preview
    const auto n = number(4, 0);
    if (!n) {
      return bad(" (number too large)");
    }
    v.pre = PreRelease{kind, *n};
  }
  if (m[5].matched || m[6].matched) {
    const auto n = m[5].matched ? to_int(m[5].str()) : number(7, 0);
    if (!n) {
      return bad(" (number too large)");
    }
    v.post = *n;
  }
  if (m[8].matched) {
    const auto n = number(9, 0);
    if (!n) {
      return bad(" (number too large)");
    }
    v.dev = *n;
  }
  if (m[10].matched) {
    v.local = split_labels(m[10].str());
  }
  return v;
}

std::optional<Pep440Version> find_version(std::string_view text)
{
  constexpr std::string_view k_separators = " \t\r\n:,;()";
  const auto starts_version = [](std::string_view token) {
    return !token.empty() && (std::isdigit(static_cast<unsigned char>(token.front())) != 0 ||
                              ((token.front() == 'v' || token.front() == 'V') && token.size() > 1 &&
                               std::isdigit(static_cast<unsigned char>(token[1])) != 0));
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const auto start = text.find_first_not_of(k_separators, i);
    if (start == std::string_view::npos) {
      break;
    }
    auto end = text.find_first_of(k_separators, start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    auto token = text.substr(start, end - start);
    if (!starts_version(token)) {
      // "rocprof-compute-3.1.1": the part after the last '-'.
      const auto dash = token.rfind('-');
      token = dash == std::string_view::npos ? std::string_view() : token.substr(dash + 1);
    }
    if (starts_version(token)) {
      if (auto v = parse_version(token)) {
        return std::move(*v);
      }
    }
    i = end;
  }
  return std::nullopt;
}

std::optional<Pep440Version> find_profiler_version(std::string_view text)
{
  const std::string lowered = lower(text);
  for (const std::string_view name :
       {std::string_view("rocprofiler-compute"), std::string_view("rocprof-compute")}) {
    if (const auto at = lowered.find(name); at != std::string::npos) {
      return find_version(text.substr(at + name.size()));
    }
  }
  return find_version(text);
}

std::optional<std::string> rocm_from_local(std::string_view text)
{
  const std::string s = lower(trim(text));
  if (s.find('/') != std::string::npos) {
    // An install path: a component rocm-X.Y[.Z].
    for (const auto& comp : [&] {
           std::vector<std::string> parts;
           std::string cur;
           for (char c : s) {
             if (c == '/') {
               parts.push_back(std::move(cur));
               cur.clear();
             } else {
               cur.push_back(c);
             }
           }
           parts.push_back(std::move(cur));
           return parts;
         }()) {
      if (comp.starts_with("rocm-")) {
        const std::string_view rest = std::string_view(comp).substr(5);
        if (rest.find('.') != std::string_view::npos) {
          if (auto d = rocm_digits(rest)) {
            return d;
          }
        }
      }
    }
    return std::nullopt;
  }
  // A whole version: read its local segment; else the text is a local segment itself.
  std::string local = s;
  if (const auto plus = s.find('+'); plus != std::string::npos) {
    local = s.substr(plus + 1);
  }
  // Labels split on '.' would cut "rocm7.1.2"; find "rocm" and read what follows.
  for (std::size_t at = local.find("rocm"); at != std::string::npos; at = local.find("rocm", at + 4)) {
    if (at > 0 && local[at - 1] != '.' && local[at - 1] != '-' && local[at - 1] != '_') {
      continue;
    }
    std::size_t end = at + 4;
    while (end < local.size() &&
           (std::isdigit(static_cast<unsigned char>(local[end])) != 0 || local[end] == '.')) {
      ++end;
    }
    std::string_view digits = std::string_view(local).substr(at + 4, end - at - 4);
    while (!digits.empty() && digits.back() == '.') {
      digits.remove_suffix(1);
    }
    // Compact digits are read only when the label ends there ("rocm712", not "rocm712abc").
    if (digits.find('.') == std::string_view::npos && end < local.size() && local[end] != '.' &&
        local[end] != '-' && local[end] != '_') {
      continue;
    }
    if (auto d = rocm_digits(digits)) {
      return d;
    }
  }
  return std::nullopt;
}

std::string normalize_package(std::string_view name)
{
  std::string out;
  bool sep = false;
  for (char c : trim(name)) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) {
      out.push_back('-');
    }
    sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

Result<StackSpec> parse_stack_spec(std::string_view text)
{
  auto bad = [&](const std::string& why) {
    return fail(ErrorCode::invalid_input,
                fmt::format("--stack '{}': {} (expected <package><op><version>, op one of < <= == != >= >, "
                            "e.g. 'vllm>=0.26')",
                            text.size() > 60
                                ? fmt::format("{}… ({} characters)", text.substr(0, 60), text.size())
                                : std::string(text),
                            why));
  };
  const auto op_at = text.find_first_of("<>=!~");
  if (op_at == std::string_view::npos) {
    return bad("no comparison operator");
  }
  StackSpec spec;
  spec.text = std::string(text);
  const std::string_view name = trim(text.substr(0, op_at));
  if (name.empty()) {
    return bad("no package name");
  }
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '.') {
      return bad(fmt::format("'{}' is not a package name", name));
    }
  }
  spec.package = normalize_package(name);
  std::string_view rest = text.substr(op_at);
  struct OpName {
    std::string_view text;
    SpecOp op;
  };
  static constexpr OpName k_ops[] = {{"<=", SpecOp::le}, {">=", SpecOp::ge}, {"==", SpecOp::eq},
                                     {"!=", SpecOp::ne}, {"<", SpecOp::lt},  {">", SpecOp::gt}};
  bool found = false;
  for (const auto& o : k_ops) {
    if (rest.starts_with(o.text)) {
      spec.op = o.op;
      rest.remove_prefix(o.text.size());
      found = true;
      break;
    }
  }
  if (!found || (!rest.empty() && (rest.front() == '=' || rest.front() == '<' || rest.front() == '>'))) {
    return bad(fmt::format("unsupported operator in '{}'", text.substr(op_at)));
  }
  std::string_view ver = trim(rest);
  if (ver.ends_with(".*")) {
    if (spec.op != SpecOp::eq && spec.op != SpecOp::ne) {
      return bad("a '.*' prefix works only with == and !=");
    }
    spec.wildcard = true;
    ver.remove_suffix(2);
  }
  if (ver.empty()) {
    return bad("no version");
  }
  auto v = parse_version(ver);
  if (!v) {
    return bad(v.error().message);
  }
  spec.version = std::move(*v);
  if (spec.wildcard &&
      (spec.version.pre || spec.version.post || spec.version.dev || !spec.version.local.empty())) {
    return bad("a '.*' prefix takes a release only (e.g. 0.26.*)");
  }
  return spec;
}

bool satisfies(const Pep440Version& installed, const StackSpec& spec)
{
  if (spec.wildcard) {
    const auto& want = spec.version.release;
    bool prefix = installed.epoch == spec.version.epoch;
    for (std::size_t i = 0; prefix && i < want.size(); ++i) {
      prefix = (i < installed.release.size() ? installed.release[i] : 0) == want[i];
    }
    return spec.op == SpecOp::eq ? prefix : !prefix;
  }
  Pep440Version lhs = installed;
  if (spec.version.local.empty()) {
    lhs.local.clear();
  }
  if (!spec.version.pre && !spec.version.post && !spec.version.dev) {
    // A plain release in the spec compares on the installed build's release
    // part: 0.26.0.dev412 is a 0.26.0 build for `vllm>=0.26`.
    lhs.pre.reset();
    lhs.post.reset();
    lhs.dev.reset();
  }
  const auto c = compare(lhs, spec.version);
  switch (spec.op) {
  case SpecOp::lt:
    return std::is_lt(c);
  case SpecOp::le:
    return std::is_lteq(c);
  case SpecOp::eq:
    return std::is_eq(c);
  case SpecOp::ne:
    return std::is_neq(c);
  case SpecOp::ge:
    return std::is_gteq(c);
  case SpecOp::gt:
    return std::is_gt(c);
  }
  return false;
}

} // namespace rfdb::domain
