// Shared pieces of the knowledge parsers: text helpers, the reuse-key rules,
// file classification and list/star values. See ingest/knowledge.hpp.
#include "ingest/knowledge/knowledge.hpp"

#include "domain/knowledge_kind.hpp"
#include "domain/vocab.hpp"
#include "ingest/knowledge/detail.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

namespace rfdb::ingest::knowledge {

namespace detail {

std::vector<Line> split_lines(std::string_view content)
{
  std::vector<Line> lines;
  int number = 0;
  for (const std::string_view text : util::split_lines(content)) {
    lines.push_back({++number, text});
  }
  if (lines.empty()) {
    lines.push_back({1, content}); // an empty file is one empty line
  }
  return lines;
}

std::string base_name(std::string_view path)
{
  const auto slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Result<void> check_utf8(std::string_view file_name, std::string_view content)
{
  const auto bad = util::find_invalid_utf8(content);
  if (!bad) {
    return {};
  }
  const auto line =
      1 + std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
  return fail(
      make_error(ErrorCode::invalid_input, fmt::format("invalid UTF-8 (byte 0x{:02x} at offset {})",
                                                       static_cast<unsigned char>(content[*bad]), *bad))
          .with_context(fmt::format("{}:{}", file_name, line)));
}

int coerce_counter(std::string_view raw, bool& ok)
{
  std::string_view s = util::trim(raw);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  ok = !s.empty() && s.size() <= 9 &&
       std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!ok) {
    return 0;
  }
  const int value = std::stoi(std::string(s));
  return negative ? -value : value;
}

std::string leading_date(std::string_view raw)
{
  const std::string_view s = util::trim(raw);
  if ((s.size() > 10 && s[10] != ' ') || !util::parse_iso_date(s.substr(0, 10))) {
    return {};
  }
  return std::string(s.substr(0, 10));
}

void add_warning(std::vector<Warning>& out, Severity severity, std::string_view file, int line,
                 std::string message)
{
  out.push_back({severity, std::string(file), line, std::move(message)});
}

namespace {

// `key` split on U+00B7 into trimmed parts.
std::vector<std::string_view> split_key(std::string_view key)
{
  static constexpr std::string_view k_middle_dot = "\xC2\xB7";
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = key.find(k_middle_dot, pos);
    parts.push_back(util::trim(key.substr(pos, dot == std::string_view::npos ? dot : dot - pos)));
    if (dot == std::string_view::npos) {
      return parts;
    }
    pos = dot + k_middle_dot.size();
  }
}

// First gfx of the first platforms item that names one ("gfx950/MI355X").
std::string gfx_from_platforms(std::string_view platforms)
{
  for (const auto& item : parse_list_value(platforms)) {
    if (auto g = extract_gfx(item); !g.empty()) {
      return g;
    }
  }
  return {};
}

} // namespace

// Rules (docs/playbook.md, "Imported knowledge"): the explicit field wins; a legacy card's
// `key` of exactly three `·` parts is <class> · <gfx> · <regime>; any other
// key is searched by pattern as a whole. The regime falls back to the whole
// key when the named part says nothing (e.g. "sglang").
void derive_reuse_key(Finding& f, const KeySources& src, std::vector<Warning>& warnings, int line)
{
  const auto parts = split_key(src.key);
  const bool triple = parts.size() == 3;
  const std::string_view key_class = triple ? parts[0] : src.key;
  const std::string_view key_gfx = triple ? parts[1] : src.key;
  const std::string_view key_regime = triple ? parts[2] : src.key;

  f.kernel_class_raw = std::string(!util::trim(src.kernel_class).empty() ? util::trim(src.kernel_class)
                                   : triple                              ? parts[0]
                                                                         : std::string_view());
  f.op_class = normalize_kernel_class(src.kernel_class);
  if (domain::is(f.op_class, domain::OpClass::unknown)) {
    f.op_class = normalize_kernel_class(key_class);
  }

  f.regime_raw = std::string(!util::trim(src.regime).empty() ? util::trim(src.regime)
                             : triple                        ? parts[2]
                                                             : std::string_view());
  f.regime = domain::normalize_regime(src.regime);
  for (std::string_view candidate : {key_regime, src.key}) {
    if (domain::is(f.regime, domain::Regime::unknown)) {
      f.regime = domain::normalize_regime(candidate);
    }
  }

  // gfx: platforms, a gfx field, the key's <gfx> part, the key, the file name.
  std::string_view gfx_source;
  for (std::string_view candidate : {src.gfx, key_gfx, src.key, src.file_name}) {
    if (!extract_gfx(candidate).empty()) {
      gfx_source = candidate;
      break;
    }
  }
  f.gfx = gfx_from_platforms(src.platforms);
  if (f.gfx.empty()) {
    f.gfx = extract_gfx(gfx_source);
    const auto all = extract_all_gfx(gfx_source);
    if (all.size() > 1) {
      add_warning(
          warnings, Severity::note, src.file_name, line,
          fmt::format("names {} gfx targets ({}); keeping {}", all.size(), fmt::join(all, ", "), f.gfx));
    }
  }
}

void apply_confidence(Finding& f, std::string_view confidence, std::vector<Warning>& warnings,
                      std::string_view file, int line)
{
  if (util::trim(confidence).empty()) {
    return;
  }
  f.stars = parse_stars(confidence);
  if (!f.stars) {
    add_warning(warnings, Severity::warning, file, line,
                fmt::format("confidence '{}' holds no \u2605; stars left empty", util::trim(confidence)));
  }
}

namespace {

// A string field of the finding's `fields` JSON object; "" when absent or not text.
std::string json_field(const std::string& fields, std::string_view key)
{
  const auto doc = nlohmann::json::parse(fields, nullptr, false);
  if (!doc.is_object()) {
    return {};
  }
  const auto it = doc.find(std::string(key));
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

void classify(Finding& f)
{
  const std::string description = json_field(f.fields, "description");
  // A `lifecycle` outside active|archived (read as active, with a warning)
  // that retires the card ("deprecated") archives it like such a status.
  std::string status = json_field(f.fields, "status");
  if (status.empty()) {
    status = json_field(f.fields, "lifecycle");
  }
  const std::string title = json_field(f.fields, "title");
  const std::string generator = json_field(f.fields, "generator");
  domain::KnowledgeText in{f.origin,    f.type,   f.lifecycle, status, f.name,   title,
                           description, f.effect, f.lever,     f.text, generator};
  const auto c = domain::classify_knowledge(in);
  f.classification = std::string(domain::to_string(c.kind));
  f.classification_reason = c.reason;
  f.iso_min = c.iso_min;
  f.iso_max = c.iso_max;
  f.e2e_min_pct = c.e2e_min_pct;
  f.e2e_max_pct = c.e2e_max_pct;
}

} // namespace detail

std::string Warning::describe() const
{
  if (line > 0) {
    return fmt::format("{}:{}: {}", file, line, message);
  }
  return fmt::format("{}: {}", file, message);
}

std::vector<std::string> parse_list_value(std::string_view value)
{
  std::string_view s = util::trim(value);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') {
    return s.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::string(s)};
  }
  s = s.substr(1, s.size() - 2);
  std::vector<std::string> items;
  std::string current;
  char quote = 0;
  bool quoted_item = false;
  const auto flush = [&] {
    const std::string_view t = util::trim(current);
    if (!t.empty() || quoted_item) {
      items.emplace_back(quoted_item ? std::string_view(current) : t);
    }
    current.clear();
    quoted_item = false;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < s.size()) {
        current += s[++i];
      } else if (c == quote) {
        quote = 0;
      } else {
        current += c;
      }
    } else if ((c == '\'' || c == '"') && util::trim(current).empty()) {
      quote = c;
      quoted_item = true;
      current.clear();
    } else if (c == ',') {
      flush();
    } else if (!quoted_item) {
      current += c;
    }
  }
  flush();
  return items;
}

std::optional<int> parse_stars(std::string_view confidence)
{
  static constexpr std::string_view k_star = "\xE2\x98\x85"; // U+2605 ★
  int count = 0;
  for (std::size_t pos = confidence.find(k_star); pos != std::string_view::npos;
       pos = confidence.find(k_star, pos + k_star.size())) {
    ++count;
  }
  if (count == 0) {
    return std::nullopt;
  }
  return std::min(count, 3);
}

std::string classify_knowledge_file(std::string_view relative_name)
{
  const std::string base = detail::base_name(relative_name);
  const std::string lower = util::lower_ascii(base);
  const std::string rel = util::lower_ascii(relative_name);
  const bool in_inbox = rel.rfind("_inbox/", 0) == 0 || rel.find("/_inbox/") != std::string::npos;
  const auto ends_with = [&](std::string_view suffix) {
    return lower.size() >= suffix.size() &&
           lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (in_inbox) {
    return ends_with(".json") || ends_with(".json.drained") ? "proposal" : "other";
  }
  if (!ends_with(".md") || lower.empty() || lower.front() == '.') {
    return "other";
  }
  if (lower == "index.md") {
    return "index";
  }
  if (lower == "readme.md") {
    return "readme";
  }
  if (lower == "_archive.md") {
    return "archive";
  }
  // The stem before the first '.' names a playbook: backend_playbook.md,
  // backend_playbook.legacy.md. Card slugs use '-' and never end in _playbook.
  const std::string stem = lower.substr(0, lower.find('.'));
  if (stem == "playbook" || (stem.size() > 9 && stem.compare(stem.size() - 9, 9, "_playbook") == 0)) {
    return "playbook";
  }
  if (lower.front() == '_') {
    return "other";
  }
  return "card";
}

} // namespace rfdb::ingest::knowledge
