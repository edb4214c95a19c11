// Legacy backend_playbook.md "Learned" lines (docs/artifacts.md, "Legacy knowledge"):
//   - [YYYY-MM-DD | model | model_class | gfx | kernel_class | shape_regime] text
//   - (seed) [* | model_class | gfx | kernel_class | shape_regime] text
// The format template sits mid-list inside an HTML comment and matches the
// entry grammar, so comments are removed before lines are matched.
#include "ingest/knowledge/detail.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace rfdb::ingest::knowledge {

namespace {

using util::trim;

// `content` with every `<!-- … -->` removed; newlines inside a comment are
// kept so line numbers stay those of the file.
std::string strip_html_comments(std::string_view content, std::string_view file,
                                std::vector<Warning>& warnings)
{
  std::string out;
  out.reserve(content.size());
  std::size_t pos = 0;
  while (pos < content.size()) {
    const std::size_t open = content.find("<!--", pos);
    if (open == std::string_view::npos) {
      out.append(content.substr(pos));
      break;
    }
    out.append(content.substr(pos, open - pos));
    std::size_t close = content.find("-->", open + 4);
    if (close == std::string_view::npos) {
      const auto line = 1 + std::count(content.begin(), content.begin() + static_cast<long>(open), '\n');
      detail::add_warning(warnings, Severity::warning, file, static_cast<int>(line),
                          "HTML comment is never closed; ignoring the rest of the file");
      close = content.size();
    }
    const std::string_view comment = content.substr(open, close - open);
    out.append(static_cast<std::size_t>(std::count(comment.begin(), comment.end(), '\n')), '\n');
    pos = std::min(content.size(), close + 3);
  }
  return out;
}

struct Entry {
  bool seed = false;
  std::string bracket;             // text between [ and ]
  std::vector<std::string> fields; // bracket split on " | "
  std::string text;
  int line = 0;
};

std::vector<std::string> split_fields(std::string_view s)
{
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t bar = s.find(" | ", pos);
    out.emplace_back(trim(s.substr(pos, bar == std::string_view::npos ? bar : bar - pos)));
    if (bar == std::string_view::npos) {
      return out;
    }
    pos = bar + 3;
  }
}

// Match `- [` / `- (seed) [` … `] text` on one line; nested brackets inside
// the fields are allowed.
std::optional<Entry> match_entry(std::string_view t, int line)
{
  Entry e;
  e.line = line;
  if (t.substr(0, 2) != "- ") {
    return std::nullopt;
  }
  t.remove_prefix(2);
  if (t.substr(0, 7) == "(seed) ") {
    e.seed = true;
    t.remove_prefix(7);
  }
  if (t.substr(0, 1) != "[") {
    return std::nullopt;
  }
  int depth = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    depth += t[i] == '[' ? 1 : t[i] == ']' ? -1 : 0;
    if (depth == 0) {
      if (i + 1 < t.size() && t[i + 1] != ' ') {
        return std::nullopt;
      }
      e.bracket = std::string(t.substr(1, i - 1));
      e.text = std::string(trim(t.substr(i + 1)));
      e.fields = split_fields(e.bracket);
      return e;
    }
  }
  return std::nullopt;
}

// The bold lead sentence of an entry ("**ROUTING: x.**"), without the stars.
std::string bold_lead(std::string_view text)
{
  if (text.substr(0, 2) != "**") {
    return {};
  }
  const std::size_t close = text.find("**", 2);
  return close == std::string_view::npos ? std::string() : std::string(trim(text.substr(2, close - 2)));
}

// An entry without a bold lead (seed lines) is named by its first sentence,
// at most 120 code points, so a report line never falls back to the identity.
std::string first_sentence(std::string_view text)
{
  const std::size_t end = text.find(". ");
  const std::string_view s = end == std::string_view::npos ? text : text.substr(0, end + 1);
  return std::string(trim(util::utf8_prefix(s, 120)));
}

// type from the lead's prefix: METHOD / MEASUREMENT METHOD → method,
// ROUTING → routing, a lead naming a LEVER → lever; otherwise empty.
std::string type_from_lead(std::string_view lead)
{
  const std::string upper = [&] {
    std::string u(lead);
    for (char& c : u) {
      c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    }
    return u;
  }();
  if (upper.rfind("METHOD", 0) == 0 || upper.rfind("MEASUREMENT METHOD", 0) == 0) {
    return "method";
  }
  if (upper.rfind("ROUTING", 0) == 0) {
    return "routing";
  }
  return upper.find("LEVER") != std::string::npos ? "lever" : "";
}

// Map the bracket fields to a Finding; false (with a warning) when the field
// count fits neither the dated nor the seed form.
bool fill_from_fields(Finding& f, Entry& e, std::string_view file, std::vector<Warning>& warnings)
{
  auto& v = e.fields;
  if (v.size() == 5 && v[0] == "*") {
    v.insert(v.begin() + 1, std::string()); // the seed form has no model
  } else if (v.size() > 6) {
    // Extra " | " can only belong to the free-text kernel_class.
    std::vector<std::string> mid(v.begin() + 4, v.end() - 1);
    v = {v[0], v[1], v[2], v[3], fmt::format("{}", fmt::join(mid, " | ")), v.back()};
    detail::add_warning(warnings, Severity::note, file, e.line,
                        "more than six ' | ' fields; the extra ones are read as kernel_class");
  }
  if (v.size() != 6) {
    detail::add_warning(warnings, Severity::warning, file, e.line,
                        fmt::format("entry has {} ' | ' fields, expected 6; skipped", v.size()));
    return false;
  }
  e.seed = e.seed || v[0] == "*";
  if (!e.seed) {
    f.last_seen = detail::leading_date(v[0].substr(0, 10));
    if (f.last_seen.empty()) {
      detail::add_warning(warnings, Severity::warning, file, e.line,
                          fmt::format("date '{}' is not YYYY-MM-DD; last_seen left empty", v[0]));
    }
  }
  f.model = v[1] == "*" ? "" : v[1];
  f.model_class = v[2];
  f.gfx = extract_gfx(v[3]);
  f.kernel_class_raw = v[4];
  f.op_class = normalize_kernel_class(v[4]);
  f.regime_raw = v[5];
  f.regime = domain::normalize_regime(v[5]);
  nlohmann::ordered_json fields = {{"date", v[0]},  {"model", v[1]},        {"model_class", v[2]},
                                   {"gfx", v[3]},   {"kernel_class", v[4]}, {"shape_regime", v[5]},
                                   {"seed", e.seed}};
  f.fields = fields.dump();
  return true;
}

} // namespace

// Stars: ★★ for dated lines — the section admitted only confirmed positive
// results ("append confirmed POSITIVE methods") — and ★ for seeds, which the
// playbook calls "priors, not gospel". Numbers come from the text (there is
// no separate effect); effect stays empty.
Result<std::vector<Finding>> parse_legacy_playbook(std::string_view file_name, std::string_view content,
                                                   std::vector<Warning>& warnings)
{
  RFDB_TRY(detail::check_utf8(file_name, content));
  const std::string stripped = strip_html_comments(content, file_name, warnings);
  const auto lines = detail::split_lines(stripped);
  std::vector<Entry> entries;
  bool fenced = false;
  bool open = false; // an entry that indented lines may continue
  for (const auto& l : lines) {
    const std::string_view t = trim(l.text);
    if (t.substr(0, 3) == "```") {
      fenced = !fenced;
      open = false;
      continue;
    }
    if (fenced) {
      continue;
    }
    if (auto e = match_entry(l.text, l.number)) {
      entries.push_back(std::move(*e));
      open = true;
    } else if (open && !t.empty() && (l.text.front() == ' ' || l.text.front() == '\t')) {
      entries.back().text += " ";
      entries.back().text += t;
    } else {
      open = false;
    }
  }

  if (entries.empty()) {
    // A file named like the playbook that holds none of its lines (a link
    // to a system file read with --follow-links, a wrong file): say so
    // rather than import it as a playbook with no finding in silence.
    detail::add_warning(warnings, Severity::warning, file_name, 0,
                        "no playbook line found; is this a backend playbook?");
  }
  const std::string base = detail::base_name(file_name);
  std::vector<Finding> out;
  std::set<std::string> seen;
  for (auto& e : entries) {
    Finding f;
    f.origin = "playbook";
    if (!fill_from_fields(f, e, file_name, warnings)) {
      continue;
    }
    f.identity = fmt::format("{}#{}|{}", base, fmt::join(e.fields, "|"), trim(util::utf8_prefix(e.text, 60)));
    if (!seen.insert(f.identity).second) {
      detail::add_warning(warnings, Severity::warning, file_name, e.line,
                          "entry repeats an earlier one (same fields and opening text); skipped");
      continue;
    }
    f.key_raw = e.bracket;
    f.name = bold_lead(e.text);
    f.type = type_from_lead(f.name);
    if (f.name.empty()) {
      f.name = first_sentence(e.text);
    }
    f.stars = e.seed ? 1 : 2;
    f.text = e.text;
    detail::classify(f);
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace rfdb::ingest::knowledge
