// GEAK's kb identity rules and promotion rule (domain/kb_identity.hpp; GEAK-KB §1,
// §2.3, §3.1, §11).
#include "domain/kb_identity.hpp"

#include "util/digest.hpp"
#include "util/hex.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rfdb::domain::kb {

namespace {

bool is_lower_alnum(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}
bool is_segment_char(char c)
{
  return is_lower_alnum(c) || c == '.' || c == '_' || c == '+' || c == '-';
}
bool is_safe_char(char c) // SAFE_COMPONENT_CHARS: A-Za-z0-9._-
{
  return (c >= 'A' && c <= 'Z') || is_lower_alnum(c) || c == '.' || c == '_' || c == '-';
}
bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

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

std::string_view strip_chars(std::string_view s, std::string_view chars)
{
  while (!s.empty() && chars.find(s.front()) != std::string_view::npos) {
    s.remove_prefix(1);
  }
  while (!s.empty() && chars.find(s.back()) != std::string_view::npos) {
    s.remove_suffix(1);
  }
  return s;
}

// The length of the run \d+(\.\d+){0,max_more} at the start of `s` (0: no digit there).
std::size_t numeric_prefix(std::string_view s, int max_more)
{
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) {
    ++i;
  }
  if (i == 0) {
    return 0;
  }
  for (int n = 0; n < max_more; ++n) {
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
      i += 1;
      while (i < s.size() && is_digit(s[i])) {
        ++i;
      }
    } else {
      break;
    }
  }
  return i;
}

bool starts_with_ci(std::string_view s, std::string_view prefix)
{
  if (s.size() < prefix.size()) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) {
      return false;
    }
  }
  return true;
}

std::vector<std::string_view> split_colon(std::string_view cid)
{
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = cid.find(':', start);
    parts.push_back(
        cid.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) {
      return parts;
    }
    start = colon + 1;
  }
}

// The positive integer N of "<prefix>_N", or nullopt.
std::optional<int> counted_value(std::string_view seg, std::string_view prefix)
{
  if (seg.size() <= prefix.size() + 1 || !seg.starts_with(prefix) || seg[prefix.size()] != '_') {
    return std::nullopt;
  }
  const std::string_view digits = seg.substr(prefix.size() + 1);
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n <= 0) {
    return std::nullopt;
  }
  return n;
}

tl::unexpected<Error> bad_id(std::string_view cid, std::string_view why)
{
  return fail(ErrorCode::invalid_input, fmt::format("not a GEAK canonical id: {} ({})", cid, why));
}

} // namespace

std::string segment(std::string_view value, std::string_view fallback)
{
  const std::string_view s = trim(value);
  std::string folded;
  folded.reserve(s.size());
  bool in_run = false;
  for (const char raw : s) {
    const char c = (raw >= 'A' && raw <= 'Z') ? static_cast<char>(raw - 'A' + 'a') : raw;
    if (is_segment_char(c)) {
      folded += c;
      in_run = false;
    } else if (!in_run) {
      folded += '-';
      in_run = true;
    }
  }
  std::string_view v = folded;
  while (!v.empty() && !(is_lower_alnum(v.front()) || v.front() == '_')) {
    v.remove_prefix(1);
  }
  v = strip_chars(v, "-");
  v = v.substr(0, k_segment_max_chars);
  return v.empty() ? std::string(fallback) : std::string(v);
}

bool is_valid_segment(std::string_view text)
{
  if (text.empty() || !(is_lower_alnum(text.front()) || text.front() == '_')) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), is_segment_char);
}

bool is_valid_session_id(std::string_view text)
{
  if (text.empty() || text.size() > 128 || !(std::isalnum(static_cast<unsigned char>(text.front())) != 0)) {
    return false;
  }
  return std::all_of(text.begin(), text.end(), is_safe_char);
}

Result<void> check_canonical_id(std::string_view cid)
{
  const auto parts = split_colon(cid);
  if (parts.size() < 2) {
    return bad_id(cid, "fewer than 2 segments");
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!is_valid_segment(parts[i])) {
      return bad_id(cid, fmt::format("segment {} '{}' is not [a-z0-9_][a-z0-9._+-]*", i, parts[i]));
    }
  }
  return {};
}

std::string counted(std::string_view prefix, std::string_view value)
{
  std::string_view s = trim(value);
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
  }
  if (s.empty() || !std::all_of(s.begin(), s.end(), is_digit)) {
    return ""; // unparsable, or negative (a '-' sign): no rung
  }
  s = s.substr(std::min(s.find_first_not_of('0'), s.size()));
  if (s.empty() || s.size() > 18) {
    return ""; // zero, or beyond any count
  }
  return fmt::format("{}_{}", prefix, s);
}

std::string counted(std::string_view prefix, std::optional<int> value)
{
  if (!value || *value <= 0) {
    return "";
  }
  return fmt::format("{}_{}", prefix, *value);
}

std::string short_rocm_version(std::string_view raw)
{
  const std::string_view s = trim(raw);
  if (s.empty()) {
    return std::string(k_unknown_version);
  }
  if (const std::size_t n = numeric_prefix(s, 1); n != 0) {
    return std::string(s.substr(0, n));
  }
  return segment(s, k_unknown_version);
}

std::string release_version(std::string_view raw)
{
  std::string_view s = trim(raw);
  if (s.empty()) {
    return std::string(k_unknown_version);
  }
  std::string_view body = s;
  if (body.front() == 'v') {
    body.remove_prefix(1);
  }
  if (const std::size_t n = numeric_prefix(body, 2); n != 0) {
    return std::string(body.substr(0, n));
  }
  return segment(s, k_unknown_version);
}

std::string canon_name(std::string_view kernel_name)
{
  std::string_view s = kernel_name;
  if (const std::size_t slash = s.find_last_of('/'); slash != std::string_view::npos) {
    s.remove_prefix(slash + 1);
  }
  static constexpr std::array<std::string_view, 5> k_prefixes{"triton_", "hip_", "ck_", "cuda_", "torch_"};
  static constexpr std::array<std::string_view, 5> k_suffixes{".py", ".hip", ".cu", ".cpp", "_task"};
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto p : k_prefixes) {
      if (s.size() > p.size() && starts_with_ci(s, p)) {
        s.remove_prefix(p.size());
        changed = true;
      }
    }
    for (const auto x : k_suffixes) {
      if (s.size() > x.size()) {
        std::string tail(s.substr(s.size() - x.size()));
        std::transform(tail.begin(), tail.end(), tail.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (tail == x) {
          s.remove_suffix(x.size());
          changed = true;
        }
      }
    }
  }
  return std::string(s);
}

std::string norm_gfx(std::string_view text)
{
  for (std::size_t i = 0; i + 3 < text.size(); ++i) {
    if (starts_with_ci(text.substr(i), "gfx") && is_digit(text[i + 3])) {
      std::size_t j = i + 3;
      while (j < text.size() && is_digit(text[j])) {
        ++j;
      }
      return "gfx" + std::string(text.substr(i + 3, j - i - 3));
    }
  }
  return "";
}

KernelIdentity kernel_identity(std::string_view gfx, std::string_view kernel_name, std::string_view backend,
                               std::string_view rocm_version)
{
  return KernelIdentity{segment(gfx), segment(kernel_name), segment(backend),
                        short_rocm_version(rocm_version)};
}

std::vector<std::string> kernel_ladder(const KernelIdentity& id)
{
  const std::string rung1 = fmt::format("{}:{}:{}:{}:{}:{}", k_scheme, k_kernel_domain, id.gpu,
                                        id.kernel_name, id.backend, k_kernel_framework);
  return {rung1 + ":" + id.framework_version, rung1};
}

E2eIdentity e2e_identity(const E2eInputs& in)
{
  E2eIdentity id;
  id.model = segment(in.model);
  id.gpu = segment(in.gfx);
  id.framework = segment(in.framework);
  id.framework_version = release_version(in.framework_version);
  id.precision = segment(in.precision);
  id.tp = counted("tp", in.tp);
  id.ep = counted("ep", in.ep);
  id.isl = counted("isl", in.isl);
  id.osl = counted("osl", in.osl);
  id.conc = counted("conc", in.conc);
  std::string kind(trim(in.workload_kind));
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  id.workload_kind = kind;
  return id;
}

std::vector<std::string> e2e_ladder(const E2eIdentity& id)
{
  const std::string base = fmt::format("{}:{}:{}:{}:{}:{}:{}", k_scheme, k_e2e_domain, id.model, id.gpu,
                                       id.framework, id.framework_version, id.precision);
  std::string workload;
  if (id.workload_kind == k_workload_agentx) {
    if (!id.conc.empty()) {
      workload = fmt::format("{}:{}", k_agentx_segment, id.conc);
    }
  } else if (!id.isl.empty() && !id.osl.empty() && !id.conc.empty()) {
    workload = fmt::format("{}:{}:{}", id.isl, id.osl, id.conc);
  }
  std::vector<std::string> ladder;
  if (!id.tp.empty()) {
    const std::string parallel = base + ":" + id.tp + (id.ep.empty() ? "" : ":" + id.ep);
    if (!workload.empty()) {
      ladder.push_back(parallel + ":" + workload);
    }
    ladder.push_back(parallel);
  }
  ladder.push_back(base);
  return ladder;
}

std::string session_id(std::string_view exact_cid, std::string_view name, std::string_view digest,
                       std::string_view producer)
{
  std::string legible;
  bool in_run = false;
  for (const char c : name) {
    if (is_safe_char(c)) {
      legible += c;
      in_run = false;
    } else if (!in_run) {
      legible += '-';
      in_run = true;
    }
  }
  std::string_view l = strip_chars(legible, "-.");
  l = strip_chars(l.substr(0, k_name_budget), "-.");
  const std::string fp = util::hex_encode(util::sha256(exact_cid)).substr(0, k_fingerprint_hex);
  std::string port;
  for (const char c : digest) {
    if (is_safe_char(c) && port.size() < k_fingerprint_hex) {
      port += c;
    }
  }
  const std::string sid = fmt::format("{}-{}-{}-{}", segment(producer, k_scheme),
                                      l.empty() ? std::string_view(k_unknown) : l, fp, port);
  return std::string(strip_chars(sid, "-"));
}

Result<ParsedIdentity> parse_canonical_id(std::string_view cid)
{
  RFDB_TRY(check_canonical_id(cid));
  const auto p = split_colon(cid);
  if (p[0] != k_scheme) {
    return bad_id(cid, fmt::format("scheme '{}', not '{}'", p[0], k_scheme));
  }
  ParsedIdentity out;
  out.domain = std::string(p[1]);
  if (p[1] == k_kernel_domain) {
    if ((p.size() == 6 || p.size() == 7) && p[5] == k_kernel_framework) {
      out.kernel = KernelIdentity{std::string(p[2]), std::string(p[3]), std::string(p[4]),
                                  p.size() == 7 ? std::string(p[6]) : std::string()};
      out.has_version = p.size() == 7;
      out.rung = p.size() == 7 ? 0 : 1;
      return out;
    }
    if (p.size() == 8 && p[4] == k_kernel_framework && norm_gfx(p[7]) == p[7]) {
      // §11: geak:kernel:<producer>:<kernel>:rocm:<ver>:<backend>:<gfx>
      out.old_order = true;
      out.producer = std::string(p[2]);
      out.kernel = KernelIdentity{std::string(p[7]), std::string(p[3]), std::string(p[6]), std::string(p[5])};
      out.has_version = true;
      return out;
    }
    return bad_id(cid, "a kernel id is geak:kernel:<gpu>:<kernel>:<backend>:rocm[:<version>] (or the old "
                       "geak:kernel:<producer>:<kernel>:rocm:<version>:<backend>:<gfx>)");
  }
  if (p[1] != k_e2e_domain) {
    return bad_id(cid, fmt::format("domain '{}', not kernel or e2e", p[1]));
  }
  if (p.size() < 7) {
    return bad_id(cid, "an e2e id has at least geak:e2e:<model>:<gpu>:<framework>:<version>:<precision>");
  }
  E2eIdentity& id = out.e2e;
  id.model = std::string(p[2]);
  id.gpu = std::string(p[3]);
  id.framework = std::string(p[4]);
  id.framework_version = std::string(p[5]);
  id.precision = std::string(p[6]);
  std::size_t i = 7;
  const auto take = [&](std::string_view prefix, std::string& into) {
    if (i < p.size() && counted_value(p[i], prefix)) {
      into = std::string(p[i++]);
      return true;
    }
    return false;
  };
  if (take("tp", id.tp)) {
    take("ep", id.ep);
    if (i < p.size() && p[i] == k_agentx_segment) {
      ++i;
      id.workload_kind = std::string(k_workload_agentx);
      if (!take("conc", id.conc)) {
        return bad_id(cid, "wl_agentx is followed by conc_N");
      }
    } else if (i < p.size()) {
      if (!take("isl", id.isl) || !take("osl", id.osl) || !take("conc", id.conc)) {
        return bad_id(cid, "a workload is isl_N:osl_N:conc_N or wl_agentx:conc_N");
      }
    }
  }
  if (i != p.size()) {
    return bad_id(cid, fmt::format("unexpected segment {} '{}'", i, p[i]));
  }
  out.rung = 0;
  return out;
}

PromotionLane kernel_lane(int /*rung*/)
{
  return PromotionLane{k_metric_speedup, 1.0};
}

PromotionLane e2e_lane(int rung, std::size_t ladder_size)
{
  if (rung == 0 && ladder_size == 3) {
    return PromotionLane{k_metric_throughput, 0.0};
  }
  return PromotionLane{k_metric_speedup, 1.0};
}

bool should_promote(std::optional<double> score, const PromotionLane& lane,
                    const std::optional<Champion>& incumbent)
{
  if (!score || !std::isfinite(*score) || !(*score > lane.floor)) {
    return false;
  }
  if (incumbent && incumbent->metric == lane.metric && !(*score > incumbent->value)) {
    return false;
  }
  return true;
}

} // namespace rfdb::domain::kb
