// Imported knowledge merged into What works lines (rules in
// report/findings.hpp): duplicates of one finding — a card and the legacy
// playbook line it came from, a drained proposal and the card it became —
// and a run's own identical finding end up on one line, where all imported
// findings together count as one source.
#include "report/merge.hpp"

#include "domain/knowledge_kind.hpp"
#include "domain/normalize.hpp"
#include "domain/vocab.hpp"
#include "report/lines.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>

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

// The kb record a cited source names ("kb record <key>", as `rfdb report --cards` writes it),
// or "".
std::string cited_kb_record(std::string_view source)
{
  const std::string s = source_key(source);
  constexpr std::string_view k_prefix = "kb record ";
  if (s.size() <= k_prefix.size() ||
      util::lower_ascii(std::string_view(s).substr(0, k_prefix.size())) != k_prefix) {
    return {};
  }
  const std::string_view rest = std::string_view(s).substr(k_prefix.size());
  return std::string(rest.substr(0, rest.find_first_of(" ,;()`")));
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
    if (f.kind == domain::KnowledgeKind::positive_measured &&
        !domain::is(f.lifecycle, domain::Lifecycle::archived)) {
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

// What an imported finding is merged with: the dtypes of the runs (their
// env report's model_dtype, else their model name) and the model names.
struct RunFacts {
  std::unordered_map<std::string, const RunInfo*> runs;
  explicit RunFacts(const std::vector<RunInfo>& in)
  {
    for (const RunInfo& r : in) {
      runs.emplace(r.run_id, &r);
    }
  }
  [[nodiscard]] const RunInfo* find(const std::string& run_id) const
  {
    const auto it = runs.find(run_id);
    return it == runs.end() ? nullptr : it->second;
  }
};

// The dtypes a line's runs and imported findings name.
std::set<std::string> line_dtypes(const Line& l, const RunFacts& facts)
{
  std::set<std::string> out = l.imported_dtypes;
  for (const std::string& id : l.runs.sorted()) {
    if (const RunInfo* r = facts.find(id)) {
      const auto d = dtypes_named(r->model_dtype.empty() ? r->model : r->model_dtype);
      out.insert(d.begin(), d.end());
    }
  }
  return out;
}

// Two dtype sets agree unless both name some and none in common.
bool dtypes_agree(const std::set<std::string>& a, const std::set<std::string>& b)
{
  if (a.empty() || b.empty()) {
    return true;
  }
  return std::any_of(a.begin(), a.end(), [&](const std::string& d) { return b.count(d) > 0; });
}

std::set<std::string> finding_dtypes(const ImportedFinding& f)
{
  for (const std::string_view t :
       {std::string_view(f.key_raw), std::string_view(f.name), std::string_view(f.description),
        std::string_view(f.title), std::string_view(f.effect)}) {
    if (auto d = dtypes_named(t); !d.empty()) {
      return d;
    }
  }
  return {};
}

Line* find_line(std::vector<Line>& lines, const ReuseKey& key, const std::string& lever_key,
                const std::string& key_text, const std::set<std::string>& dtypes, const RunFacts& facts)
{
  for (Line& l : lines) {
    if (!key_compatible(l.key, key)) {
      continue;
    }
    // The dtypes last: they walk the line's runs (thousands on a long history).
    if ((l.lever_key == lever_key || l.backend_keys.count(lever_key) > 0 ||
         (!key_text.empty() && l.imported_key_texts.count(key_text) > 0)) &&
        dtypes_agree(line_dtypes(l, facts), dtypes)) {
      return &l;
    }
  }
  return nullptr;
}

// Letters and digits only: "Kimi K2.6", "Kimi-K2.6" and "kimi_k26" compare equal.
std::string alnum_only(std::string_view text)
{
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += c;
    }
  }
  return out;
}

// The runs of `l` an imported finding restates: a run whose model it names
// and one of whose figures (the line's isolated or e2e range ends) it states
// to its own precision (≥ 2 decimals): "1.59x" for 1.5902, "+16.05%" for
// 16.049. Such a card is that run's evidence, not an independent source.
std::vector<std::string> restated_runs(const Line& l, const ImportedFinding& f, const RunFacts& facts)
{
  std::vector<std::string> out;
  if (l.run_evidence.ref_count == 0) {
    return out;
  }
  const std::string text = alnum_only(util::lower_ascii(
      fmt::format("{}\n{}\n{}\n{}\n{}", f.key_raw, f.name, f.description, f.effect, f.text)));
  const auto figures = domain::stated_figures(fmt::format("{}\n{}\n{}", f.description, f.effect, f.text));
  const auto same = [](const domain::StatedFigure& g, const std::optional<double>& v) {
    const double half_step = 0.5 * std::pow(10.0, -g.decimals) + 1e-9;
    return v && g.decimals >= 2 && (std::abs(g.lo - *v) <= half_step || std::abs(g.hi - *v) <= half_step);
  };
  const LineRuns& r = l.run_evidence;
  const bool figure_matches = std::any_of(figures.begin(), figures.end(), [&](const domain::StatedFigure& g) {
    return g.metric == domain::StatedFigure::Metric::isolated ? same(g, r.iso_min) || same(g, r.iso_max)
                                                              : same(g, r.e2e_min) || same(g, r.e2e_max);
  });
  if (!figure_matches) {
    return out;
  }
  for (const std::string& id : l.runs.sorted()) {
    const RunInfo* run = facts.find(id);
    if (run == nullptr || run->model.empty()) {
      continue;
    }
    std::string model = util::lower_ascii(run->model);
    model.erase(0, model.find_last_of('/') == std::string::npos ? 0 : model.find_last_of('/') + 1);
    model = alnum_only(model);
    if (!model.empty() && text.find(model) != std::string::npos) {
      out.push_back(id);
    }
  }
  return out;
}

void add_to_line(Line& l, const ImportedFinding& f, const std::vector<std::string>& cited,
                 const std::vector<std::string>& restates)
{
  l.imported_ids.insert(f.identity);
  if (auto d = finding_dtypes(f); !d.empty()) {
    l.imported_dtypes.insert(d.begin(), d.end());
  }
  l.restated_runs.insert(restates.begin(), restates.end());
  if (std::string k = folded_key_text(f); !k.empty()) {
    l.imported_key_texts.insert(std::move(k));
  }
  l.imported_stars = std::max(l.imported_stars, std::clamp(f.stars.value_or(1), 1, 3));
  if (restates.empty()) {
    l.independent_import = true;
    l.imported_confirms = std::max(l.imported_confirms, f.confirms.value_or(1));
  }
  l.spellings.insert(one_line(f.lever.empty() ? imported_display(f) : f.lever));
  for (const auto& s : cited) {
    if (!covers(l, s)) {
      l.sources.push_back(s);
      l.source_set.insert(source_key(s));
    }
  }
  if (restates.empty()) { // a restating card's figures are the run's own
    widen(l.imported_iso_min, l.imported_iso_max, f.iso_min);
    widen(l.imported_iso_min, l.imported_iso_max, f.iso_max);
    widen(l.imported_e2e_min, l.imported_e2e_max, f.e2e_min_pct);
    widen(l.imported_e2e_min, l.imported_e2e_max, f.e2e_max_pct);
  }
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
  std::string name = one_line(f.name);
  if (!name.empty() && !is_slug(name)) {
    const bool heading = name.back() == ':';
    while (!name.empty() && (name.back() == ':' || name.back() == ' ')) {
      name.pop_back();
    }
    if (!heading) {
      return first_sentence(name, k_max);
    }
    const std::string rest = first_sentence(after_lead(f.text), k_max);
    return first_sentence(rest.empty() ? name : name + ": " + rest, k_max);
  }
  for (const std::string& t :
       {first_sentence(f.title, k_max), first_sentence(f.description, k_max),
        first_sentence(domain::card_heading(f.text), k_max), first_sentence(body_title(f.text), k_max),
        first_sentence(f.lever, k_max), first_sentence(f.effect, k_max)}) {
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
  const RunFacts facts(scoped.runs);
  std::set<std::string, std::less<>> kb_keys; // the kb records in scope (merge_kb puts them on lines)
  for (const auto& r : scoped.kb_records) {
    kb_keys.insert(r.record_key);
  }
  for (const ImportedFinding* f : merge_order(scoped.imported)) {
    const ReuseKey key = imported_reuse_key(*f);
    const std::string lever_key = imported_lever_key(*f);
    const auto cited = cited_sources(*f);
    Line* line = find_line(lines, key, lever_key, folded_key_text(*f), finding_dtypes(*f), facts);
    // Our own card only restates evidence already in scope: the runs of its line, and the kb
    // records it cites (merge_kb, after this, joins them to that line or gives them their own).
    const auto restated = [&](const std::string& s) {
      const std::string kb = cited_kb_record(s);
      return kb.empty() ? line != nullptr && covers(*line, s) : kb_keys.count(kb) != 0;
    };
    if (f->generator == "rfdb" && std::all_of(cited.begin(), cited.end(), restated)) {
      continue;
    }
    if (line == nullptr) {
      lines.push_back(Line{});
      line = &lines.back();
      line->key = key;
      line->lever_key = lever_key;
      line->display = imported_display(*f);
    }
    add_to_line(*line, *f, cited, restated_runs(*line, *f, facts));
  }
}

std::set<std::string> dtypes_named(std::string_view text)
{
  // Spellings of one dtype family as whole words (split on anything that is
  // not a letter or digit): int4_w4a16 → int4, a8w8 → fp8.
  static const std::pair<std::string_view, std::string_view> k_spellings[] = {
      {"bf16", "bf16"},   {"bfloat16", "bf16"}, {"fp16", "fp16"},   {"float16", "fp16"}, {"fp8", "fp8"},
      {"w8a8", "fp8"},    {"a8w8", "fp8"},      {"e4m3", "fp8"},    {"int4", "int4"},    {"w4a16", "int4"},
      {"gptq", "int4"},   {"awq", "int4"},      {"int8", "int8"},   {"w8a16", "int8"},   {"w4a8", "w4a8"},
      {"mxfp4", "mxfp4"}, {"fp4", "mxfp4"},     {"nvfp4", "mxfp4"}, {"mxfp8", "mxfp8"},  {"fp32", "fp32"}};
  std::set<std::string> out;
  const std::string lower = util::lower_ascii(text);
  std::size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && std::isalnum(static_cast<unsigned char>(lower[i])) == 0) {
      ++i;
    }
    std::size_t j = i;
    while (j < lower.size() && std::isalnum(static_cast<unsigned char>(lower[j])) != 0) {
      ++j;
    }
    const std::string_view word = std::string_view(lower).substr(i, j - i);
    for (const auto& [spelling, family] : k_spellings) {
      if (word == spelling) {
        out.insert(std::string(family));
      }
    }
    i = j;
  }
  return out;
}

} // namespace rfdb::report::detail

namespace rfdb::report {

std::vector<MethodNote> build_method_notes(const ReportInput& scoped)
{
  using domain::KnowledgeKind;
  std::vector<const ImportedFinding*> order;
  for (const auto& f : scoped.imported) {
    if ((f.kind == KnowledgeKind::method || f.kind == KnowledgeKind::seam_fact ||
         f.kind == KnowledgeKind::routing_note) &&
        !domain::is(f.lifecycle, domain::Lifecycle::archived)) {
      order.push_back(&f);
    }
  }
  std::sort(order.begin(), order.end(), [](const ImportedFinding* a, const ImportedFinding* b) {
    return std::tie(a->origin, a->identity) < std::tie(b->origin, b->identity);
  });
  std::vector<MethodNote> notes;
  for (const ImportedFinding* f : order) {
    const ReuseKey key = detail::imported_reuse_key(*f);
    const std::string lever_key = detail::imported_lever_key(*f);
    auto it = std::find_if(notes.begin(), notes.end(), [&](const MethodNote& n) {
      return n.kind == f->kind && n.lever_key == lever_key && key_compatible(n.key, key);
    });
    if (it == notes.end()) {
      notes.push_back(MethodNote{f->kind, key, lever_key, detail::imported_display(*f), {}, 0, ""});
      it = std::prev(notes.end());
    }
    it->identities.push_back(f->identity);
    it->stars = std::max(it->stars, std::clamp(f->stars.value_or(1), 1, 3));
    detail::bump_date(it->last_seen, f->last_seen);
  }
  for (auto& n : notes) {
    std::sort(n.identities.begin(), n.identities.end());
    n.identities.erase(std::unique(n.identities.begin(), n.identities.end()), n.identities.end());
  }
  std::sort(notes.begin(), notes.end(), [](const MethodNote& a, const MethodNote& b) {
    if (a.kind != b.kind) {
      return a.kind < b.kind;
    }
    if (!(a.key == b.key)) {
      return key_less(a.key, b.key);
    }
    return a.title < b.title;
  });
  return notes;
}

} // namespace rfdb::report
