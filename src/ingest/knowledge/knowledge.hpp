// Legacy knowledge parsers: experience cards (knowledge/learned/*.md), their
// _inbox proposals and the older backend_playbook.md "Learned" lines.
//
// Pure: callers pass a file name and its contents and get Findings back; no
// file or database I/O. Formats: docs/artifacts.md, "Legacy knowledge"; Finding mirrors the
// learned_findings columns (migrations/0001_init.sql). Per-file problems that
// do not stop a parse come back as Warnings ("file:line: message");
// a file that cannot be read at all is an invalid_input error naming file
// and line.
//
// Conventions: an empty string means "absent" (store NULL); std::nullopt
// means an absent number. Identities use the file's base name, so the same
// card ingested from different roots stays one identity.
#pragma once

#include "domain/normalize.hpp"
#include "store/findings_writer.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest::knowledge {

// `note` is informational (a skipped file, a chosen interpretation) and never
// fails `--strict`; `warning` is something the author should fix.
enum class Severity { note, warning };

// A knowledge parser's warning: a file and 1-based line (markdown has no
// JSON pointer) and a severity; ingest_knowledge turns it into an
// ingest::Warning with pointer "line N".
struct Warning {
  Severity severity = Severity::warning;
  std::string file; // as passed by the caller
  int line = 0;     // 1-based; 0 = the whole file
  std::string message;

  // "file:line: message" (or "file: message" when line is 0).
  [[nodiscard]] std::string describe() const;
};

// A card's `- dead-end:` bullets are kept in `cautions` behind
// domain::k_dead_end_prefix (domain/normalize.hpp).

// One imported finding (store/findings_writer.hpp); field names are the
// learned_findings column names.
using store::Finding;

// Numbers stated in an `effect` string; each pair is set only when exactly
// one distinct figure of its kind is stated (docs/playbook.md, "Imported knowledge": keep raw
// otherwise). e2e values are percent; iso values are × over baseline.
struct EffectNumbers {
  std::optional<double> iso_min;
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct;
  std::optional<double> e2e_max_pct;
};

// Parse one experience card. Identity = base name of `file_name`.
// Front matter: first non-blank line (after an optional BOM) is `---`, up to
// the next `---` line; flat `key: value` split on the first ':', `#` lines
// skipped, indented lines continue the previous value. Errors (invalid_input,
// context "file:line"): no/unclosed front matter, invalid UTF-8, a
// front-matter line without ':'.
Result<Finding> parse_card(std::string_view file_name, std::string_view content,
                           std::vector<Warning>& warnings);

// Parse the "Learned" lines of a legacy backend_playbook.md (docs/artifacts.md, "Legacy knowledge"):
// `- [date | model | model_class | gfx | kernel_class | shape_regime] text`
// and the 5-field `- (seed) [* | model_class | gfx | kernel_class | regime]`.
// HTML comments are removed first; every other line is ignored. name: the
// bold lead, else the first sentence (≤ 120 code points). Stars: ★★ for
// dated lines (the section only admitted verified positives), ★ for seeds.
// Identity: "<base name>#<bracket fields joined by |>|<first 60 chars of text>".
// Error (invalid_input): invalid UTF-8.
Result<std::vector<Finding>> parse_legacy_playbook(std::string_view file_name, std::string_view content,
                                                   std::vector<Warning>& warnings);

// Parse an _inbox/<run_id>.json[.drained] proposal (docs/artifacts.md, "Legacy knowledge"): one
// Finding per cards[i], identity "<base name without .drained>#/cards/<i>".
// A proposal kb.py would not drain (validation_status not accepted,
// box_quiet false, held_out true, no run_id) is kept with lifecycle
// "archived" and a note. Errors: invalid UTF-8 or JSON, no cards array.
Result<std::vector<Finding>> parse_proposal(std::string_view file_name, std::string_view content,
                                            std::vector<Warning>& warnings);

// One INDEX.md line that names a card file which is not in the card set.
struct IndexDangling {
  int line = 0;
  std::string card; // e.g. "mxfp8-microscale-gemm-gfx950.md"
};

// Result of comparing INDEX.md with the card files actually present.
struct IndexCheck {
  std::vector<std::string> listed;   // present cards the index names
  std::vector<std::string> unlisted; // present cards the index does not name
  std::vector<IndexDangling> dangling;
  std::vector<int> bullets_without_card; // lines of `- ` entries naming no .md
  std::vector<Warning> warnings;         // one per unlisted/dangling/bullet
};

// Cross-check INDEX.md (docs/artifacts.md, "Legacy knowledge"; a cross-check only, never
// membership). A line names a card by `(x.md)`, a bare `x.md` (no '/'), or
// a generated `- ★★ <slug> — …` entry. `card_file_names` may carry paths;
// base names are compared.
IndexCheck cross_check_index(std::string_view index_file_name, std::string_view index_content,
                             const std::vector<std::string>& card_file_names);

// Decide what a file under a knowledge directory is, from its relative name:
// "card" | "index" | "readme" | "archive" | "proposal" | "playbook" | "other".
std::string classify_knowledge_file(std::string_view relative_name);

// Map a free-text kernel class to the store's op_class:
// gemm|moe|attn|elementwise|method|unknown. Checked in that priority:
// method, moe, attn, routing/topk, gemm, other elementwise words.
std::string normalize_kernel_class(std::string_view raw);

// normalize_regime (the regime of a reuse key) is in domain/normalize.hpp (rfdb::domain).

// First `gfx\d+[a-z]*` in `text`, lower-cased; empty when there is none.
std::string extract_gfx(std::string_view text);

// Every distinct `gfx\d+[a-z]*` in `text`, in order of appearance.
std::vector<std::string> extract_all_gfx(std::string_view text);

// Read the unambiguous numbers of an `effect` string (see EffectNumbers).
// iso: a decimal followed by × or x ("1.047x", "1.08–1.22×"); e2e: a signed
// percentage or range ("+2.23% e2e", "−0.064 % e2e", "+10.40%..+11.45%"),
// preferring the one figure tagged "e2e".
EffectNumbers extract_effect_numbers(std::string_view effect);

// Split a front-matter list value, `[a, b]` or `['a', "b"]`, into items
// (quotes removed). A value without brackets is one item; "[]" is none.
std::vector<std::string> parse_list_value(std::string_view value);

// ★ count of a confidence value (1..3); nullopt when it holds no ★.
std::optional<int> parse_stars(std::string_view confidence);

} // namespace rfdb::ingest::knowledge
