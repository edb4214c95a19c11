// Imported knowledge merged into What works lines (rules in
// report/findings.hpp): duplicates of one finding — a card and the legacy
// playbook line it came from, a drained proposal and the card it became —
// and a run's own identical finding end up on one line, where all imported
// findings together count as one source.
#include "domain/normalize.hpp"
#include "domain/vocab.hpp"
#include "report/lines.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace rfdb::report::detail {

namespace {

// True when `source` is already on the line: one of its run ids (optionally
// "run <id>…") or a source an earlier imported finding brought.
bool covers(const Line& l, std::string_view source)
{
  const std::string s = source_key(source);
  if (l.source_set.count(s) > 0 || l.runs.count(s) > 0) {
    return true;
  }
  std::string_view v = s;
  if (v.size() > 4 && util::lower_ascii(v.substr(0, 4)) == "run ") {
    v.remove_prefix(4);
  }
  const std::string token(v.substr(0, v.find_first_of(" ,;()")));
  return l.runs.count(token) > 0;
}

std::vector<std::string> cited_sources(const ImportedFinding& f)
{
  std::vector<std::string> cited;
  for (const auto& s : f.sources_cited) {
    if (std::string t = one_line(s); !t.empty()) {
      cited.push_back(std::move(t));
    }
  }
  if (cited.empty()) {
    cited.push_back(fmt::format("{} {}", f.origin, short_identity(f.identity)));
  }
  return cited;
}

int origin_rank(std::string_view origin)
{
  return domain::is(origin, domain::FindingOrigin::card)       ? 0
         : domain::is(origin, domain::FindingOrigin::proposal) ? 1
                                                               : 2;
}

// Imported findings in merge order: other producers first, our own cards
// last (so they are recognized as already covered); cards before proposals
// before playbook lines (the richer text names a merged line); then identity.
std::vector<const ImportedFinding*> merge_order(const std::vector<ImportedFinding>& imported)
{
  std::vector<const ImportedFinding*> order;
  for (const auto& f : imported) {
    if (!domain::is(f.lifecycle, domain::Lifecycle::archived) && !f.negative) {
      order.push_back(&f);
    }
  }
  const auto rank = [](const ImportedFinding* f) {
    return std::make_tuple(f->generator == "rfdb", origin_rank(f->origin), std::cref(f->identity),
                           std::cref(f->lever), std::cref(f->name), std::cref(f->last_seen));
  };
  std::sort(order.begin(), order.end(),
            [&](const ImportedFinding* a, const ImportedFinding* b) { return rank(a) < rank(b); });
  return order;
}

std::string folded_key_text(const ImportedFinding& f)
{
  return domain::fold_lever_text(f.key_raw);
}

Line* find_line(std::vector<Line>& lines, const ReuseKey& key, const std::string& lever_key,
                const std::string& key_text)
{
  for (Line& l : lines) {
    if (!key_compatible(l.key, key)) {
      continue;
    }
    if (l.lever_key == lever_key || l.backend_keys.count(lever_key) > 0 ||
        (!key_text.empty() && l.imported_key_texts.count(key_text) > 0)) {
      return &l;
    }
  }
  return nullptr;
}

void add_to_line(Line& l, const ImportedFinding& f, const std::vector<std::string>& cited)
{
  l.imported_ids.insert(f.identity);
  if (std::string k = folded_key_text(f); !k.empty()) {
    l.imported_key_texts.insert(std::move(k));
  }
  l.imported_stars = std::max(l.imported_stars, std::clamp(f.stars.value_or(1), 1, 3));
  l.imported_confirms = std::max(l.imported_confirms, f.confirms.value_or(1));
  l.spellings.insert(one_line(f.lever.empty() ? imported_display(f) : f.lever));
  for (const auto& s : cited) {
    if (!covers(l, s)) {
      l.sources.push_back(s);
      l.source_set.insert(source_key(s));
    }
  }
  widen(l.imported_iso_min, l.imported_iso_max, f.iso_min);
  widen(l.imported_iso_min, l.imported_iso_max, f.iso_max);
  widen(l.imported_e2e_min, l.imported_e2e_max, f.e2e_min_pct);
  widen(l.imported_e2e_min, l.imported_e2e_max, f.e2e_max_pct);
  bump_date(l.imported_last_seen, f.last_seen);
  for (const auto& c : f.cautions) {
    if (std::string t = one_line(c);
        !t.empty() && std::find(l.cautions.begin(), l.cautions.end(), t) == l.cautions.end()) {
      l.cautions.push_back(std::move(t));
    }
  }
}

// Text after a bold lead ("**Lead:** rest" → "rest").
std::string_view after_lead(std::string_view text)
{
  if (text.substr(0, 2) == "**") {
    const std::size_t close = text.find("**", 2);
    if (close != std::string_view::npos) {
      text.remove_prefix(close + 2);
    }
  }
  return text;
}

// The first line of a card body that is prose or a heading's text.
std::string body_title(std::string_view text)
{
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string line = one_line(text.substr(pos, end - pos));
    pos = end + 1;
    while (!line.empty() && (line.front() == '#' || line.front() == '>' || line.front() == ' ')) {
      line.erase(0, 1);
    }
    if (!line.empty() && line.rfind("- ", 0) != 0 && line != "---") {
      return line;
    }
  }
  return "";
}

bool is_slug(std::string_view s)
{
  return s.find(' ') == std::string_view::npos;
}

} // namespace

std::string imported_display(const ImportedFinding& f)
{
  constexpr std::size_t k_max = 160;
  if (std::string lever = first_sentence(f.lever, k_max); !lever.empty()) {
    return lever;
  }
  std::string name = one_line(f.name);
  if (!name.empty() && !is_slug(name)) {
    const bool heading = name.back() == ':';
    while (!name.empty() && (name.back() == ':' || name.back() == ' ')) {
      name.pop_back();
    }
    if (!heading) {
      return util::truncate_utf8(name, k_max);
    }
    const std::string rest = first_sentence(after_lead(f.text), k_max);
    return util::truncate_utf8(rest.empty() ? name : name + ": " + rest, k_max);
  }
  for (const std::string& t : {first_sentence(f.description, k_max),
                               first_sentence(body_title(f.text), k_max), first_sentence(f.effect, k_max)}) {
    if (!t.empty()) {
      return t;
    }
  }
  return "imported finding";
}

std::string imported_lever_key(const ImportedFinding& f)
{
  // Our own card states the key of the line it was written from.
  if (std::string k = one_line(f.lever_key); !k.empty()) {
    return k;
  }
  // A stated lever decides, with its apply text; only a finding that states
  // none (a playbook line) is named by its title and the opening of its text,
  // where a line states its method (the rest is context and other levers).
  constexpr std::size_t k_text_window = 600;
  const std::string op_class = imported_reuse_key(f).op_class;
  const bool stated = !one_line(f.lever).empty();
  const std::vector<std::string_view> texts =
      stated
          ? std::vector<std::string_view>{f.lever, f.apply}
          : std::vector<std::string_view>{f.name, f.apply, std::string_view(f.text).substr(0, k_text_window)};
  for (const std::string_view t : texts) {
    if (std::string k = domain::known_lever(t, op_class); !k.empty()) {
      return k;
    }
  }
  return domain::lever_key(stated ? std::string_view(f.lever) : std::string_view(imported_display(f)),
                           op_class);
}

ReuseKey imported_reuse_key(const ImportedFinding& f)
{
  return {domain::op_class_key(f.op_class), domain::gfx_key(f.gfx), domain::normalize_regime(f.regime)};
}

void merge_imported(std::vector<Line>& lines, const ReportInput& scoped)
{
  for (const ImportedFinding* f : merge_order(scoped.imported)) {
    const ReuseKey key = imported_reuse_key(*f);
    const std::string lever_key = imported_lever_key(*f);
    const auto cited = cited_sources(*f);
    Line* line = find_line(lines, key, lever_key, folded_key_text(*f));
    if (f->generator == "rfdb" && line != nullptr &&
        std::all_of(cited.begin(), cited.end(), [&](const std::string& s) { return covers(*line, s); })) {
      continue; // our own card: it only restates evidence already on the line
    }
    if (line == nullptr) {
      lines.push_back(Line{});
      line = &lines.back();
      line->key = key;
      line->lever_key = lever_key;
      line->display = imported_display(*f);
    }
    add_to_line(*line, *f, cited);
  }
}

} // namespace rfdb::report::detail
