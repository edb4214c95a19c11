// `rfdb report --cards DIR`: one learned card per finding of "What works"
// plus INDEX.md, in the learned-card format (docs/playbook.md, "Cards (`--cards DIR`)", issue 4).
//
// Pure: render_cards returns {file_name, content} pairs and plan_card_sync
// decides, from the files already in DIR, what the caller writes. Rules:
// - A card is one finding shown in the playbook (evicted findings get none).
//   File name: slug(lever, ≤ 60 chars) + "-" + slug(op_class-gfx-regime) +
//   ".md" (kb.py's shape), "-2", "-3" … on a clash; `name` is that stem.
// - Front matter: name, description (≤ 160 code points), keywords, kernels,
//   platforms, kernel_class (= op_class), regime, key, type, confidence,
//   effect, confirms, lifecycle, last_seen, generator: rfdb. Body: a heading,
//   then `- lever:`, `- apply:`, `- verify:`, `- caution:` (each starting
//   "also verify"), one `- source:` per run id, then each imported source, then
//   `- source: kb record ID` per GEAK kb record on the line that is not retired.
//   Body values go through md_text; lever and source keys ignore the
//   escapes (source_key), so ingesting the card matches the same line and
//   run ids (and kb records: merge.cpp) again: the round trip changes nothing.
// - Nothing in a card depends on as_of, so re-running later rewrites nothing.
// - Sync: a generated card whose bytes already exist is left alone; a card in
//   DIR written by rfdb (front matter `generator: rfdb`) that is no longer
//   generated is rewritten with `lifecycle: archived`, never deleted; files
//   without that line belong to someone else and are never touched (a name
//   clash with one is reported, not written). INDEX.md: only the lines
//   between the markers are replaced; an INDEX.md without markers gets the
//   marked block appended.
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report {

// One file of the cards directory (a base name, no directory part).
struct CardFile {
  std::string file_name;
  std::string content;
};

inline constexpr std::string_view k_index_file = "INDEX.md";
inline constexpr std::string_view k_cards_begin = "<!-- CARDS:BEGIN -->";
inline constexpr std::string_view k_cards_end = "<!-- CARDS:END -->";

// The cards of the shown findings in report order, then INDEX.md.
std::vector<CardFile> render_cards(const Analysis& analysis);
std::vector<CardFile> render_cards(const ReportInput& input);

// Lower-case ASCII letters and digits, everything else folded into single
// '-', trimmed, at most `max_len` bytes (cut at a '-' boundary when possible).
std::string slugify(std::string_view text, std::size_t max_len);

// What to do with the cards directory.
struct CardSyncPlan {
  std::vector<CardFile> writes;       // new, changed or newly archived files (by name)
  std::vector<std::string> unchanged; // byte-identical already (by name)
  std::vector<std::string> archived;  // rfdb cards no longer backed by evidence (also in writes)
  std::vector<std::string> conflicts; // generated names held by a non-rfdb file (not written)
};

// Compare `generated` (render_cards output) with the `existing` *.md files
// of the directory and plan the writes. Deterministic: every list is sorted.
CardSyncPlan plan_card_sync(const std::vector<CardFile>& generated, const std::vector<CardFile>& existing);

// True when the front matter holds the line `generator: rfdb`.
bool is_rfdb_card(std::string_view content);
// The card with `lifecycle: archived` in its front matter (line replaced or
// added before the closing `---`); unchanged text when it has no front matter.
std::string archive_card(std::string_view content);
// INDEX.md after replacing the marked block of `existing` by the one in
// `generated` (or appending it when `existing` has no markers).
std::string merge_index(std::string_view existing, std::string_view generated);

} // namespace rfdb::report
