// Internal to report/: the What works line while attempts and imported
// findings are merged into it (findings.cpp builds lines from attempts,
// merge.cpp adds the imported findings). Not a public API.
#pragma once

#include "report/findings.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rfdb::report::detail {

struct Line {
  ReuseKey key;
  std::string lever_key;
  std::string display;                      // shown lever text
  std::set<std::string> spellings;          // raw lever texts
  std::vector<const AttemptInfo*> attempts; // qualifying attempts
  std::set<std::string> runs;
  std::set<std::string> backend_keys; // lever keys of the attempts' backends
  // Imported knowledge on the line: one source whatever its member count.
  std::set<std::string> imported_ids;
  std::set<std::string> imported_key_texts; // folded `key` fields (kb.py's merge target)
  std::vector<std::string> sources;         // cited, first-seen order
  std::set<std::string> source_set;         // source_key of each
  std::vector<std::string> cautions;
  int imported_stars = 0;
  int imported_confirms = 0; // the largest count of one member: duplicates restate it
  std::string imported_last_seen;
  std::optional<double> imported_iso_min, imported_iso_max, imported_e2e_min, imported_e2e_max;
};

// Add the imported findings of `scoped` to `lines` (rules in findings.hpp).
void merge_imported(std::vector<Line>& lines, const ReportInput& scoped);

// The display text of an imported finding: never a file name, never a
// heading that ends in ':'.
std::string imported_display(const ImportedFinding& f);
// Its lever key: the first known lever named by its lever and apply text —
// or, when it states no lever (a playbook line), by its name, apply and text
// — else its folded lever (or display) text.
std::string imported_lever_key(const ImportedFinding& f);
// Its reuse key.
ReuseKey imported_reuse_key(const ImportedFinding& f);

// Widen [lo, hi] by v.
void widen(std::optional<double>& lo, std::optional<double>& hi, const std::optional<double>& v);
// The later of two dates ("" and non-dates lose).
void bump_date(std::string& date, std::string_view candidate);

} // namespace rfdb::report::detail
