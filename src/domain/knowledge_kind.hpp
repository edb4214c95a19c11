// What an imported finding (learned card, _inbox proposal card, legacy
// playbook line) says, read from its own text: a measured positive, a result
// inside the noise band, a negative, a method, a seam fact, a routing note, or
// archived. Only a measured positive may become a What works line; the rules
// and their reasons are in docs/playbook.md ("Imported knowledge").
//
// Pure: text in, classification out; no I/O. The same function runs at ingest
// (the stored `classification` column) and in the report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// The kind of an imported finding; stored spelling in to_string.
enum class KnowledgeKind { positive_measured, in_noise, negative, method, seam_fact, routing_note, archived };

// "positive_measured", "in_noise", …
std::string_view to_string(KnowledgeKind kind);
// The kind spelled exactly `text`; nullopt otherwise.
std::optional<KnowledgeKind> parse_knowledge_kind(std::string_view text);

// A figure stated in free text: an e2e delta in percent (signed, "+2.23%",
// "−0.222 %", "+16-18%", "+10.40%..+11.45%") or an isolated speedup as × over
// baseline ("1.2336x", "1.10–1.18×"). A single value has lo == hi.
struct StatedFigure {
  enum class Metric { e2e_pct, isolated };
  Metric metric = Metric::e2e_pct;
  double lo = 0.0;
  double hi = 0.0;
  std::size_t pos = 0;  // byte offset of the figure in the text
  std::size_t end = 0;  // byte offset just past its unit
  int decimals = 0;     // decimals as written (the larger of a range's two)
  bool signed_ = false; // written with + or − (an e2e delta)
  bool approx = false;  // written with "~"
};

// Every e2e and isolated figure of `text` that reads as a measurement, in
// order. Left out: shares and ceilings ("~9% GPU", "Amdahl ceiling +1.7%",
// "the 0.5% noise band", "TPOT -5.73%"), and × figures that are throughput
// ratios ("tok/s, 1.2437×") or that no isolated word ("iso", "isolated",
// "geomean", "kernel", "serving-weighted", "unit", "op-level", "speedup",
// "faster") stands near.
std::vector<StatedFigure> stated_figures(std::string_view text);

// The first markdown heading of a card body ("# title" → "title"); "" when
// it has none. A legacy card's heading is its title.
std::string_view card_heading(std::string_view body);

// Everything an imported finding's kind is read from: its stored fields
// (empty = absent).
struct KnowledgeText {
  std::string_view origin;      // card | playbook | proposal
  std::string_view type;        // card `type` (lever, routing, method, anti-pattern …)
  std::string_view lifecycle;   // active | archived
  std::string_view status;      // card `status` (e.g. DEPRECATED-FOR-THIS-EVAL)
  std::string_view name;        // card `name` (a slug is no title) / playbook bold lead or first sentence
  std::string_view title;       // a proposal card's `title`
  std::string_view description; // card or proposal `description`
  std::string_view effect;      // card `effect` line
  std::string_view lever;       // `- lever:` text
  std::string_view text;        // card body (its first heading is a title) / playbook line text
  std::string_view generator;   // "rfdb" for a card `rfdb report --cards` wrote
};

// The classification, its reason and the numbers it read: the finding's own
// figures (never another card's: only the decisive text is read).
struct KnowledgeClass {
  KnowledgeKind kind = KnowledgeKind::routing_note;
  std::string reason;            // one line, e.g. "effect states e2e +0.19 % (inside the ±0.5 % band)"
  std::optional<double> iso_min; // × over baseline
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct; // percent, signed
  std::optional<double> e2e_max_pct;
};

// Classify (rules, in order):
// 1. archived: lifecycle archived, or a status that deprecates, retires or
//    supersedes the finding; a card rfdb wrote (generator rfdb) restates a
//    What works line: a measured positive;
// 2. negative: type anti-pattern;
// 3. method: type method, or a playbook lead "MEASUREMENT METHOD" / "METHOD CARD";
// 4. a playbook line whose bold lead starts "ROUTING" (and names no LEVER) states
//    where to look, not a result: seam fact or routing note (rule 6);
// 5. measured: the headline figure — the first e2e figure of the description,
//    then of the effect (playbook lines: of the text); without any e2e, the
//    first isolated figure — decides: an e2e beyond +0.5 % is a measured
//    positive unless its clause says it is in noise (sub-noise, overlapping,
//    below the band, null) or was rejected; within ±0.5 % in_noise; below
//    −0.5 % negative; an isolated figure beyond 1.034× positive, below
//    1/1.034 negative, else in_noise;
// 6. otherwise a seam fact when the title, lead or lever speaks of the live
//    path, seam, dispatcher or mechanism, else a routing note.
// When unsure the kind is never positive_measured.
KnowledgeClass classify_knowledge(const KnowledgeText& in);

} // namespace rfdb::domain
