// Experience-card parser (knowledge/learned/<slug>.md, docs/artifacts.md, "Legacy knowledge").
//
// Front matter is read the way kb.py reads it — flat `key: value` lines split
// on the first ':' — because 10 of the 24 real cards are not valid YAML
// (plain scalars containing ": ", " #1" read as a comment).
#include "domain/vocab.hpp"
#include "ingest/knowledge/detail.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <map>
#include <utility>

namespace rfdb::ingest::knowledge {

namespace {

using detail::Line;
using util::trim;

struct FrontMatterEntry {
  std::string key;
  std::string value;
  int line = 0;
};

struct FrontMatter {
  std::vector<FrontMatterEntry> entries; // in file order, duplicates kept
  std::size_t body_start = 0;            // index into the lines vector
  int close_line = 0;
};

Error card_error(std::string_view file, int line, std::string message)
{
  return make_error(ErrorCode::invalid_input, std::move(message))
      .with_context(fmt::format("{}:{}", file, line));
}

// Read the front matter; lines[0] may carry a BOM. Blank lines before the
// opening `---` are allowed, nothing else is.
Result<FrontMatter> read_front_matter(std::string_view file, const std::vector<Line>& lines)
{
  static constexpr std::string_view k_bom = "\xEF\xBB\xBF";
  std::size_t i = 0;
  const auto text_of = [&](std::size_t k) {
    std::string_view t = lines[k].text;
    if (k == 0 && t.substr(0, k_bom.size()) == k_bom) {
      t.remove_prefix(k_bom.size());
    }
    return t;
  };
  while (i < lines.size() && trim(text_of(i)).empty()) {
    ++i;
  }
  if (i == lines.size() || trim(text_of(i)) != "---") {
    const int at = i == lines.size() ? 1 : lines[i].number;
    return fail(card_error(file, at, "no front matter: the card must start with a '---' line"));
  }
  const int open_line = lines[i].number;
  FrontMatter fm;
  for (++i; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const std::string_view t = trim(raw);
    if (t == "---") {
      fm.body_start = i + 1;
      fm.close_line = lines[i].number;
      return fm;
    }
    if (t.empty() || raw.front() == '#') {
      continue;
    }
    if (raw.front() == ' ' || raw.front() == '\t') {
      if (fm.entries.empty()) {
        return fail(card_error(file, lines[i].number, "indented front-matter line continues no key"));
      }
      // A folded continuation, as YAML would read a multi-line plain scalar.
      auto& value = fm.entries.back().value;
      value += value.empty() ? "" : " ";
      value += t;
      continue;
    }
    const auto colon = raw.find(':');
    if (colon == std::string_view::npos || trim(raw.substr(0, colon)).empty()) {
      return fail(card_error(file, lines[i].number,
                             fmt::format("front-matter line has no 'key:' ({})", util::utf8_prefix(t, 60))));
    }
    fm.entries.push_back(
        {std::string(trim(raw.substr(0, colon))), std::string(trim(raw.substr(colon + 1))), lines[i].number});
  }
  return fail(card_error(file, open_line, "front matter opened here is never closed by '---'"));
}

// The body bullets we keep: `- lever:`, `- apply:`, `- verify:`,
// `- caution:`, `- source:`, also with a qualifier (`- source (sglang):`).
struct Bullets {
  std::vector<std::string> lever;
  std::vector<std::string> apply;
  std::vector<std::string> verify;
  std::vector<std::string> caution;
  std::vector<std::string> source;
  std::vector<std::string> dead_end; // `- dead-end:` (legacy cards): an imported negative
};

std::vector<std::string>* bullet_slot(Bullets& b, std::string_view label)
{
  const std::string lower = util::lower_ascii(label);
  const std::pair<std::string_view, std::vector<std::string>*> slots[] = {
      {"lever", &b.lever},   {"apply", &b.apply},       {"verify", &b.verify},     {"caution", &b.caution},
      {"source", &b.source}, {"dead-end", &b.dead_end}, {"dead end", &b.dead_end}, {"deadend", &b.dead_end}};
  for (const auto& [name, slot] : slots) {
    if (lower == name) {
      return slot;
    }
  }
  return nullptr;
}

// A column-0 line that cannot continue a bullet (structure of its own).
bool starts_structure(std::string_view t)
{
  for (std::string_view p : {"- ", "* ", "+ ", "#", ">", "|", "```", "<!--"}) {
    if (t.substr(0, p.size()) == p) {
      return true;
    }
  }
  return t == "-" || t == "---";
}

// Split "- label: value" into the slot and the value; nullptr when not a
// kept bullet. The label is a kept name, optionally followed by a number
// and/or a parenthesised qualifier, which is kept as a value prefix:
// "source (sglang): x" → "(sglang) x", "lever 2 (after fusing): x".
std::vector<std::string>* match_bullet(Bullets& b, std::string_view t, std::string& value)
{
  if (t.substr(0, 2) != "- ") {
    return nullptr;
  }
  const std::string_view rest = t.substr(2);
  std::size_t word_end = 0;
  while (word_end < rest.size() && std::isalpha(static_cast<unsigned char>(rest[word_end])) != 0) {
    ++word_end;
  }
  // "dead-end" / "dead end" is one label of two words.
  if (util::starts_with_ci(rest, "dead") && (util::starts_with_ci(rest.substr(word_end), "-end") ||
                                             util::starts_with_ci(rest.substr(word_end), " end"))) {
    word_end += 4;
  }
  auto* slot = bullet_slot(b, rest.substr(0, word_end));
  if (slot == nullptr) {
    return nullptr;
  }
  std::size_t pos = word_end;
  while (pos + 1 < rest.size() && rest[pos] == ' ' &&
         std::isdigit(static_cast<unsigned char>(rest[pos + 1])) != 0) {
    pos = rest.find_first_not_of("0123456789", pos + 1);
    pos = pos == std::string_view::npos ? rest.size() : pos;
  }
  if (rest.substr(pos, 2) == " (") {
    int depth = 0;
    for (std::size_t i = pos + 1; i < rest.size(); ++i) {
      depth += rest[i] == '(' ? 1 : rest[i] == ')' ? -1 : 0;
      if (depth == 0) {
        pos = i + 1;
        break;
      }
    }
  }
  if (rest.substr(pos, 1) != ":") {
    return nullptr;
  }
  const std::string_view qualifier = trim(rest.substr(word_end, pos - word_end));
  const std::string_view text = trim(rest.substr(pos + 1));
  value = qualifier.empty() ? std::string(text) : fmt::format("{} {}", qualifier, text);
  return slot;
}

// Collect the kept bullets of the body. Indented lines continue the current
// bullet (joined by a space); a column-0 line that is not new structure
// continues it as a new record (joined by "\n"); a blank line ends it.
Bullets read_bullets(const std::vector<Line>& lines, std::size_t from)
{
  Bullets b;
  std::string* current = nullptr;
  bool fenced = false;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const std::string_view t = trim(raw);
    if (t.substr(0, 3) == "```") {
      fenced = !fenced;
      current = nullptr;
      continue;
    }
    if (fenced || t.empty()) {
      current = nullptr;
      continue;
    }
    std::string value;
    if (auto* slot = match_bullet(b, raw, value)) {
      slot->push_back(std::move(value));
      current = &slot->back();
    } else if (current != nullptr && (raw.front() == ' ' || raw.front() == '\t')) {
      *current += current->empty() ? "" : " ";
      *current += t;
    } else if (current != nullptr && !starts_structure(raw)) {
      *current += "\n";
      *current += t;
    } else {
      current = nullptr;
    }
  }
  return b;
}

// The card body: the lines after the closing `---`, outer blank lines removed.
std::string body_text(const std::vector<Line>& lines, std::size_t from)
{
  std::size_t first = from;
  std::size_t last = lines.size();
  while (first < last && trim(lines[first].text).empty()) {
    ++first;
  }
  while (last > first && trim(lines[last - 1].text).empty()) {
    --last;
  }
  std::string out;
  for (std::size_t i = first; i < last; ++i) {
    out += lines[i].text;
    if (i + 1 < last) {
      out += '\n';
    }
  }
  return out;
}

// Counters and scalar fields that need coercion or validation.
void apply_scalar_fields(Finding& f, const FrontMatter& fm, std::string_view file,
                         std::vector<Warning>& warnings)
{
  const std::pair<std::string_view, std::optional<int>*> counters[] = {{"confirms", &f.confirms},
                                                                       {"confirms_cited", &f.confirms_cited},
                                                                       {"confirms_blind", &f.confirms_blind},
                                                                       {"losses", &f.losses},
                                                                       {"attempts", &f.attempts}};
  for (const auto& e : fm.entries) {
    for (const auto& [name, slot] : counters) {
      if (e.key == name) {
        bool ok = true;
        *slot = detail::coerce_counter(e.value, ok);
        if (!ok) {
          detail::add_warning(
              warnings, Severity::warning, file, e.line,
              fmt::format("{} '{}' is not an integer; read as 0", name, util::utf8_prefix(e.value, 40)));
        }
      }
    }
    if (e.key == "confidence") {
      detail::apply_confidence(f, e.value, warnings, file, e.line);
    } else if (e.key == "last_seen") {
      f.last_seen = detail::leading_date(e.value);
      if (f.last_seen.empty() && !e.value.empty()) {
        detail::add_warning(
            warnings, Severity::warning, file, e.line,
            fmt::format("last_seen '{}' is not YYYY-MM-DD; left empty", util::utf8_prefix(e.value, 40)));
      }
    } else if (e.key == "status") {
      // Seen as `status: DEPRECATED-FOR-THIS-EVAL`: scoped to one eval, so
      // it does not archive the card; say so rather than drop it silently.
      detail::add_warning(warnings, Severity::note, file, e.line,
                          fmt::format("status '{}' is not a lifecycle; it does not archive the card",
                                      util::utf8_prefix(e.value, 40)));
    } else if (e.key == "lifecycle") {
      const std::string v = util::lower_ascii(e.value);
      const auto lifecycle = domain::parse<domain::Lifecycle>(v);
      f.lifecycle = domain::to_string(lifecycle.value_or(domain::Lifecycle::active));
      if (!lifecycle) {
        detail::add_warning(warnings, Severity::warning, file, e.line,
                            fmt::format("lifecycle '{}' is neither active nor archived; "
                                        "read as active",
                                        e.value));
      }
    }
  }
}

using FieldMap = std::map<std::string, std::string, std::less<>>;

std::string_view field_of(const FieldMap& fields, std::string_view key)
{
  const auto it = fields.find(key);
  return it == fields.end() ? std::string_view() : std::string_view(it->second);
}

// lever/apply/verify/cautions/sources_cited/text from the body; a front-matter
// field of the same name fills a slot the body leaves empty.
void apply_body(Finding& f, const std::vector<Line>& lines, const FrontMatter& fm, const FieldMap& fields,
                std::string_view file, std::vector<Warning>& warnings)
{
  Bullets b = read_bullets(lines, fm.body_start);
  const std::pair<std::string_view, std::vector<std::string>*> fallbacks[] = {
      {"lever", &b.lever}, {"apply", &b.apply}, {"verify", &b.verify}, {"caution", &b.caution}};
  for (const auto& [name, slot] : fallbacks) {
    if (slot->empty() && !field_of(fields, name).empty()) {
      slot->emplace_back(field_of(fields, name));
    }
  }
  if (!field_of(fields, "source").empty()) {
    b.source.insert(b.source.begin(), std::string(field_of(fields, "source")));
  }
  f.lever = util::join(b.lever, "\n");
  f.apply = util::join(b.apply, "\n");
  f.verify = util::join(b.verify, "\n");
  f.cautions = std::move(b.caution);
  for (auto& d : b.dead_end) {
    f.cautions.push_back(std::string(domain::k_dead_end_prefix) + d);
  }
  f.sources_cited = std::move(b.source);
  f.text = body_text(lines, fm.body_start);
  if (f.sources_cited.empty()) {
    detail::add_warning(warnings, Severity::note, file, fm.close_line,
                        "card cites no '- source:' (README requires one)");
  }
}

} // namespace

// Identity = base name. name = `name`, else the file stem. The explicit
// `kernel_class` / `regime` / `platforms` fields win over the legacy `key`.
// sources_cited: a front-matter `source` first, then every `- source:`.
Result<Finding> parse_card(std::string_view file_name, std::string_view content,
                           std::vector<Warning>& warnings)
{
  RFDB_TRY(detail::check_utf8(file_name, content));
  const auto lines = detail::split_lines(content);
  FrontMatter fm;
  RFDB_TRY_ASSIGN(fm, read_front_matter(file_name, lines));

  Finding f;
  f.origin = "card";
  f.identity = detail::base_name(file_name);
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  FieldMap fields;
  int key_line = fm.close_line;
  for (const auto& e : fm.entries) {
    if (fields.count(e.key) > 0) {
      detail::add_warning(warnings, Severity::warning, file_name, e.line,
                          fmt::format("duplicate front-matter key '{}'; the last one wins", e.key));
    }
    json[e.key] = e.value;
    fields[e.key] = e.value;
    key_line = e.key == "key" ? e.line : key_line;
  }
  const auto field = [&](std::string_view k) { return field_of(fields, k); };
  f.fields = json.dump();
  const std::string stem = f.identity.substr(0, f.identity.rfind(".md"));
  f.name = field("name").empty() ? stem : std::string(field("name"));
  f.key_raw = field("key");
  f.type = field("type");
  f.effect = field("effect");
  f.model = field("model");
  f.model_class = field("model_class");
  apply_scalar_fields(f, fm, file_name, warnings);
  detail::derive_reuse_key(
      f, {field("kernel_class"), field("regime"), field("key"), field("platforms"), field("gfx"), file_name},
      warnings, key_line);
  apply_body(f, lines, fm, fields, file_name, warnings);
  detail::classify(f);
  return f;
}

} // namespace rfdb::ingest::knowledge
