// INDEX.md cross-check (docs/artifacts.md, "Legacy knowledge"). The index is hand-maintained and
// drifts from the card set, so it never decides membership: it only yields
// warnings about cards it misses and entries that point nowhere.
#include "domain/vocab.hpp"
#include "ingest/knowledge/detail.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace rfdb::ingest::knowledge {

namespace {

using util::trim;

bool is_name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == '/';
}

// Card references on one line: `x.md` tokens without a directory (a path
// names another document) that classify as cards (README.md does not).
std::vector<std::string> md_references(std::string_view line)
{
  std::vector<std::string> out;
  for (std::size_t pos = line.find(".md"); pos != std::string_view::npos; pos = line.find(".md", pos + 3)) {
    const std::size_t end = pos + 3;
    if (end < line.size() && is_name_char(line[end]) && line[end] != '.' && line[end] != '/') {
      continue; // ".mdx", ".md5"
    }
    std::size_t begin = pos;
    while (begin > 0 && is_name_char(line[begin - 1])) {
      --begin;
    }
    const std::string_view token = line.substr(begin, end - begin);
    if (begin == pos || token.find('/') != std::string_view::npos) {
      continue;
    }
    if (domain::is(classify_knowledge_file(token), domain::KnowledgeRole::card)) {
      out.emplace_back(token);
    }
  }
  return out;
}

// The slug of a generated entry, `- ★★ <slug> — …` (kb.py _render_index).
std::string generated_slug(std::string_view line)
{
  static constexpr std::string_view k_star = "\xE2\x98\x85";
  std::string_view t = line.substr(2);
  bool stars = false;
  while (t.substr(0, k_star.size()) == k_star) {
    t.remove_prefix(k_star.size());
    stars = true;
  }
  t = trim(t);
  const std::string_view slug = t.substr(0, t.find(' '));
  const bool slug_like = !slug.empty() && std::all_of(slug.begin(), slug.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
  return stars && slug_like ? std::string(slug) : std::string();
}

} // namespace

// Entry bullets are `- ` lines after the first `## ` heading; the header's
// prose and the tier legend name no card and are not entries.
IndexCheck cross_check_index(std::string_view index_file_name, std::string_view index_content,
                             const std::vector<std::string>& card_file_names)
{
  IndexCheck check;
  std::set<std::string> present;
  for (const auto& name : card_file_names) {
    present.insert(detail::base_name(name));
  }
  std::set<std::string> named;
  bool in_entries = false;
  bool fenced = false;
  for (const auto& l : detail::split_lines(index_content)) {
    const std::string_view t = l.text;
    if (trim(t).substr(0, 3) == "```") {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      continue;
    }
    if (t.substr(0, 3) == "## ") {
      in_entries = true;
      continue;
    }
    auto refs = md_references(t);
    const bool entry = in_entries && t.substr(0, 2) == "- ";
    if (refs.empty() && entry) {
      if (auto slug = generated_slug(t); !slug.empty()) {
        refs.push_back(slug + ".md");
      } else {
        check.bullets_without_card.push_back(l.number);
        detail::add_warning(check.warnings, Severity::warning, index_file_name, l.number,
                            "index entry names no card file");
      }
    }
    for (const auto& ref : refs) {
      named.insert(ref);
      if (present.count(ref) == 0) {
        check.dangling.push_back({l.number, ref});
        detail::add_warning(check.warnings, Severity::warning, index_file_name, l.number,
                            fmt::format("names {}, which is not in the card directory", ref));
      }
    }
  }
  for (const auto& card : present) {
    if (named.count(card) > 0) {
      check.listed.push_back(card);
    } else {
      check.unlisted.push_back(card);
      detail::add_warning(check.warnings, Severity::warning, index_file_name, 0,
                          fmt::format("does not list card {}", card));
    }
  }
  return check;
}

} // namespace rfdb::ingest::knowledge
