// Learned cards and INDEX.md for `rfdb report --cards` (rules in report/cards.hpp).
#include "report/cards.hpp"

#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "report/analysis.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace rfdb::report {

namespace {

constexpr std::size_t k_description_max = 160; // code points (docs/playbook.md, "Cards (`--cards DIR`)")
constexpr std::size_t k_slug_lever_max = 60;

// A front-matter list `[a, b]`; items lose the characters the flat list
// syntax cannot carry.
std::string list_value(const std::vector<std::string>& items)
{
  std::vector<std::string> clean;
  for (const auto& item : items) {
    std::string t = one_line(item);
    for (char& c : t) {
      if (c == ',' || c == '[' || c == ']' || c == '\'' || c == '"') {
        c = '-';
      }
    }
    if (!t.empty() && std::find(clean.begin(), clean.end(), t) == clean.end()) {
      clean.push_back(std::move(t));
    }
  }
  return "[" + util::join(clean, ", ") + "]";
}

std::vector<std::string> short_identities(const Finding& f)
{
  std::vector<std::string> out;
  for (const auto& i : f.imported_identities) {
    out.push_back(short_identity(i));
  }
  return out;
}

std::string effect_text(const Finding& f)
{
  std::string runs = f.run_ids.empty()
                         ? std::string()
                         : fmt::format("{} run{}", f.run_ids.size(), f.run_ids.size() == 1 ? "" : "s");
  if (!f.imported_identities.empty()) {
    runs += fmt::format("{}imported knowledge ({} finding{})", runs.empty() ? "" : " + ",
                        f.imported_identities.size(), f.imported_identities.size() == 1 ? "" : "s");
  }
  if (const auto kb = std::count_if(f.kb_sources.begin(), f.kb_sources.end(),
                                    [](const KbSource& k) { return !k.retired; });
      kb > 0) {
    runs += fmt::format("{}{} kb record{}", runs.empty() ? "" : " + ", kb, kb == 1 ? "" : "s");
  }
  return fmt::format("isolated {}; e2e {}; {}", iso_range_text(f.iso_min, f.iso_max),
                     e2e_range_text(f.e2e_min_pct, f.e2e_max_pct), runs);
}

std::string description(const Finding& f)
{
  const std::string head = f.key.text() + ": ";
  const std::string tail =
      fmt::format(" ({}, isolated {}, e2e {})", stars_text(f.stars), iso_range_text(f.iso_min, f.iso_max),
                  e2e_range_text(f.e2e_min_pct, f.e2e_max_pct));
  const std::size_t fixed_len = util::utf8_length(head) + util::utf8_length(tail);
  const std::size_t room = fixed_len < k_description_max ? k_description_max - fixed_len : 1;
  return util::truncate_utf8(head + util::truncate_utf8(f.lever, room) + tail, k_description_max);
}

std::string card_type(const Finding& f)
{
  if (domain::is(f.key.op_class, domain::ReuseClass::method)) {
    return "method";
  }
  return domain::is(f.lever_kind, domain::LeverKind::backend) ||
                 domain::is(f.lever_kind, domain::LeverKind::config)
             ? "routing"
             : "lever";
}

std::string apply_text(const Finding& f)
{
  if (domain::is(f.key.op_class, domain::ReuseClass::config)) {
    return fmt::format("Pass the same serving flag or env at launch on {} and A/B it end to end on the "
                       "target workload; a serving-config lever.",
                       f.key.gfx);
  }
  std::vector<std::string> parts;
  if (!f.lever_kind.empty()) {
    const bool vowel = std::string_view("aeiou").find(f.lever_kind.front()) != std::string_view::npos;
    parts.push_back(fmt::format("{} {} lever", vowel ? "an" : "a", f.lever_kind));
  }
  if (!f.backends.empty()) {
    parts.push_back("backend " + util::join(f.backends, ", "));
  }
  if (!f.kernels.empty()) {
    parts.push_back("measured on " + util::join(f.kernels, ", "));
  }
  if (!f.imported_identities.empty()) {
    parts.push_back("see imported " + util::join(short_identities(f), ", ") + " for how it was applied");
  }
  return fmt::format("Try it where the run matches {}{}{}.", f.key.text(), parts.empty() ? "" : "; ",
                     util::join(parts, "; "));
}

std::vector<std::string> card_cautions(const Finding& f, const std::vector<Caution>& cautions)
{
  std::vector<std::string> out;
  for (const auto& c : cautions) {
    if (c.key == f.key && c.lever_key == f.lever_key) {
      std::string t = c.text;
      if (!t.empty() && t[0] == 'A') {
        t[0] = 'a'; // kb.py reads "also verify …"
      }
      out.push_back(std::move(t));
    }
  }
  for (const auto& c : f.cautions) {
    out.push_back(md_text(c));
  }
  return out;
}

std::string render_card(const Finding& f, const std::string& stem, const std::vector<Caution>& cautions)
{
  std::vector<std::string> keywords{slugify(f.key.op_class, 40), slugify(f.key.gfx, 40),
                                    slugify(f.key.regime, 40)};
  if (!f.lever_kind.empty()) {
    keywords.push_back(slugify(f.lever_kind, 40));
  }
  for (const auto& b : f.backends) {
    keywords.push_back(slugify(b, 40));
  }
  std::erase(keywords, std::string());
  const std::vector<std::string> platforms =
      f.key.gfx == domain::k_unknown ? std::vector<std::string>{} : std::vector<std::string>{f.key.gfx};
  std::string out = "---\n";
  out += fmt::format("name: {}\ndescription: {}\nkeywords: {}\nkernels: {}\nplatforms: {}\n", stem,
                     description(f), list_value(keywords), list_value(f.kernels), list_value(platforms));
  out += fmt::format("kernel_class: {}\nregime: {}\nkey: {}\ntype: {}\nconfidence: {}\neffect: {}\n",
                     f.key.op_class, f.key.regime, f.key.text(), card_type(f), stars_text(f.stars),
                     effect_text(f));
  out += fmt::format("confirms: {}\nlifecycle: active\nlast_seen: {}\nlever_key: {}\n", f.confirms,
                     f.last_seen, f.lever_key);
  if (f.spellings.size() > 1) {
    // Every raw spelling behind the one lever key (kept, never matched on).
    out += fmt::format("spellings: {}\n", list_value(f.spellings));
  }
  if (!f.imported_identities.empty()) {
    out += fmt::format("imported: {}\n", list_value(short_identities(f)));
  }
  out += "generator: rfdb\n---\n\n";
  out += fmt::format("# {} ({})\n\n", md_text(util::truncate_utf8(f.lever, 120)), f.key.text());
  out += fmt::format("- lever: {}\n- apply: {}\n", md_text(f.lever), md_text(apply_text(f)));
  out += fmt::format(
      fmt::runtime(domain::is(f.key.op_class, domain::ReuseClass::config)
                       ? "- verify: Re-measure the end-to-end throughput delta (noise band {e2e:g} %) on the "
                         "target workload "
                         "with the A/B gate, check output parity, and confirm the flag took effect.\n"
                       : "- verify: Re-measure the isolated speedup (noise band {iso:g} %) and the "
                         "end-to-end throughput "
                         "delta (noise band {e2e:g} %) on the target workload with the A/B gate, and confirm "
                         "the lever "
                         "engaged.\n"),
      fmt::arg("iso", 100.0 * domain::k_iso_noise), fmt::arg("e2e", domain::k_e2e_noise_pct));
  for (const auto& c : card_cautions(f, cautions)) {
    out += fmt::format("- caution: {}\n", c);
  }
  for (const auto& r : f.run_ids) {
    out += fmt::format("- source: {}\n", md_text(r));
  }
  for (const auto& s : f.imported_sources) {
    out += fmt::format("- source: {}\n", md_text(s));
  }
  for (const auto& k : f.kb_sources) {
    if (!k.retired) { // a retired record is no source of the lever (its caution names it)
      out += fmt::format("- source: kb record {}\n", md_text(k.record_key));
    }
  }
  return out;
}

std::string render_index(const std::vector<Finding>& findings, const std::vector<std::string>& stems)
{
  std::string out = "# Learned cards\n\nGenerated by `rfdb report --cards` from the evidence in the store: "
                    "one card per finding "
                    "of the playbook's What works section, grouped by reuse key `kernel_class \u00b7 gfx "
                    "\u00b7 regime`. Tiers: "
                    "\u2605 a single run not verified end to end; \u2605\u2605 one clean run or \u2265 2 "
                    "agreeing sources; "
                    "\u2605\u2605\u2605 \u2265 2 independent clean sources or a verified end-to-end win; "
                    "imported knowledge stays at most \u2605\u2605 until a run confirms it. At "
                    "most 40 lines. The lines "
                    "between the markers are regenerated; edit around them.\n\n";
  out += std::string(k_cards_begin) + "\n\n";
  if (findings.empty()) {
    out += "No cards yet.\n\n";
  }
  for (std::size_t i = 0; i < findings.size();) {
    const ReuseKey key = findings[i].key;
    out += "## " + md_text(key.text()) + "\n\n";
    for (; i < findings.size() && findings[i].key == key; ++i) {
      out += fmt::format("- {} {} \u2014 {} ({}.md)\n", stars_text(findings[i].stars), stems[i],
                         md_text(effect_text(findings[i])), stems[i]);
    }
    out += "\n";
  }
  out += std::string(k_cards_end) + "\n";
  return out;
}

// Front-matter lines [begin, end) of a card, or {0, 0} without front matter.
std::pair<std::size_t, std::size_t> front_matter(const std::vector<std::string>& lines)
{
  if (lines.empty() || lines[0] != "---") {
    return {0, 0};
  }
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i] == "---") {
      return {1, i};
    }
  }
  return {0, 0};
}

// The lines of `text` (util::split_lines) as strings, editable in place.
std::vector<std::string> owned_lines(std::string_view text)
{
  const auto views = util::split_lines(text);
  return {views.begin(), views.end()};
}

} // namespace

std::string slugify(std::string_view text, std::size_t max_len)
{
  std::string out;
  for (const char c : text) {
    const char l = util::lower_ascii(c);
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  if (out.size() > max_len) {
    const std::size_t dash = out.rfind('-', max_len);
    out.resize(dash != std::string::npos && dash > max_len / 2 ? dash : max_len);
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  return out;
}

std::vector<CardFile> render_cards(const ReportInput& input)
{
  return render_cards(analyze(input));
}

std::vector<CardFile> render_cards(const Analysis& a)
{
  std::vector<CardFile> files;
  std::vector<std::string> stems;
  std::set<std::string> used{"index", "readme", "_archive"};
  for (const Finding& f : a.findings) {
    std::string lever = slugify(f.lever, k_slug_lever_max);
    const std::string base = (lever.empty() ? std::string("lever") : lever) + "-" +
                             slugify(f.key.op_class + "-" + f.key.gfx + "-" + f.key.regime, 80);
    std::string stem = base;
    for (int k = 2; used.count(stem) > 0; ++k) {
      stem = fmt::format("{}-{}", base, k);
    }
    used.insert(stem);
    stems.push_back(stem);
    files.push_back({stem + ".md", render_card(f, stem, a.cautions)});
  }
  files.push_back({std::string(k_index_file), render_index(a.findings, stems)});
  return files;
}

bool is_rfdb_card(std::string_view content)
{
  const auto lines = owned_lines(content);
  const auto [begin, end] = front_matter(lines);
  return std::any_of(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                     lines.begin() + static_cast<std::ptrdiff_t>(end),
                     [](const std::string& l) { return one_line(l) == "generator: rfdb"; });
}

std::string archive_card(std::string_view content)
{
  auto lines = owned_lines(content);
  const auto [begin, end] = front_matter(lines);
  if (end == 0) {
    return std::string(content);
  }
  bool found = false;
  for (std::size_t i = begin; i < end; ++i) {
    if (lines[i].rfind("lifecycle:", 0) == 0) {
      lines[i] = "lifecycle: archived";
      found = true;
    }
  }
  if (!found) {
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(end), "lifecycle: archived");
  }
  const bool final_newline = !content.empty() && content.back() == '\n';
  return util::join(lines, "\n") + (final_newline ? "\n" : "");
}

std::string merge_index(std::string_view existing, std::string_view generated)
{
  const std::size_t gb = generated.find(k_cards_begin);
  const std::size_t ge = generated.find(k_cards_end);
  if (gb == std::string_view::npos || ge == std::string_view::npos) {
    return std::string(generated);
  }
  const std::string_view block = generated.substr(gb, ge + k_cards_end.size() - gb);
  const std::size_t eb = existing.find(k_cards_begin);
  const std::size_t ee = eb == std::string_view::npos ? eb : existing.find(k_cards_end, eb);
  if (eb == std::string_view::npos || ee == std::string_view::npos) {
    std::string out(existing);
    if (!out.empty() && out.back() != '\n') {
      out += '\n';
    }
    return out + (out.empty() ? "" : "\n") + std::string(block) + "\n";
  }
  return std::string(existing.substr(0, eb)) + std::string(block) +
         std::string(existing.substr(ee + k_cards_end.size()));
}

CardSyncPlan plan_card_sync(const std::vector<CardFile>& generated, const std::vector<CardFile>& existing)
{
  std::map<std::string, const CardFile*> present;
  for (const auto& e : existing) {
    present[e.file_name] = &e;
  }
  CardSyncPlan plan;
  std::set<std::string> names;
  for (const auto& g : generated) {
    names.insert(g.file_name);
    const auto it = present.find(g.file_name);
    if (g.file_name == k_index_file) {
      const std::string merged =
          it == present.end() ? g.content : merge_index(it->second->content, g.content);
      if (it != present.end() && merged == it->second->content) {
        plan.unchanged.push_back(g.file_name);
      } else {
        plan.writes.push_back({g.file_name, merged});
      }
    } else if (it == present.end()) {
      plan.writes.push_back(g);
    } else if (!is_rfdb_card(it->second->content)) {
      plan.conflicts.push_back(g.file_name);
    } else if (it->second->content == g.content) {
      plan.unchanged.push_back(g.file_name);
    } else {
      plan.writes.push_back(g);
    }
  }
  for (const auto& [name, file] : present) {
    if (names.count(name) > 0 || name == k_index_file || !is_rfdb_card(file->content)) {
      continue;
    }
    const std::string archived = archive_card(file->content);
    if (archived == file->content) {
      plan.unchanged.push_back(name);
    } else {
      plan.writes.push_back({name, archived});
      plan.archived.push_back(name);
    }
  }
  const auto by_name = [](const CardFile& x, const CardFile& y) { return x.file_name < y.file_name; };
  std::sort(plan.writes.begin(), plan.writes.end(), by_name);
  std::sort(plan.unchanged.begin(), plan.unchanged.end());
  std::sort(plan.conflicts.begin(), plan.conflicts.end());
  return plan;
}

} // namespace rfdb::report
