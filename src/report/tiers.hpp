// The stars of a playbook line (★ to ★★★) and the reason shown for them.
//
// The tier rule (docs/playbook.md, "Tiers"): ★★★ ≥ 2 independent clean sources or a verified
// end-to-end win; ★★ one clean source or ≥ 2 agreeing sources; ★
// otherwise. A source is a distinct run, or the line's imported knowledge
// (all imported findings on a line together are one source; it is clean
// when it self-rates ★★ or more). A line without run evidence is capped
// at ★★, and so is a line whose lever a lost validation included (a
// caution names the run and the figure).
//
// Where the inputs come from: finish_line (findings.cpp) gathers a line's
// TierEvidence from its run attempts (clean runs, a verified or lost Director
// validation) and from the imported knowledge merged onto it (merge.cpp: the
// self-rated stars, whether it restates one of the line's runs), then calls
// assign_tier; k_imported_cap is in findings.hpp.
#pragma once

#include <optional>
#include <string>

namespace rfdb::report {

// What decides a tier (see the rule above).
struct TierEvidence {
  int agreeing_sources = 0; // distinct runs + the imported source
  int clean_sources = 0;    // clean runs + the imported source when it self-rates ★★+
  int clean_runs = 0;       // of clean_sources, the runs
  bool verified_e2e = false;
  int imported_stars = 0;             // self-rated stars of the imported source; 0 = none
  bool run_evidence = false;          // at least one run stands behind the line
  bool validation_lost = false;       // a lost Director validation included the lever
  std::optional<double> lost_speedup; // its throughput_speedup
  // GEAK kb records on the line (report/kb_lines.hpp); retired ones count in none of these.
  bool kb_source = false;       // at least one record counts: one source, like imported knowledge
  bool kb_validated = false;    // one of them has a `validated` attestation: a clean source
  int kb_run_reproductions = 0; // distinct runs whose attempt signs the same as one of them
  // The largest `reproductions` one of them states — never their sum nor their number: a store
  // session and the experience it was also written as are one measurement written twice
  // (report/lookup.cpp counts a lever's kb reproductions the same way).
  int kb_geak_reproductions = 0;
  std::string kb_retired; // the first retired record on the line ("" = none): caps at ★★
};
struct Tier {
  int stars = 1;
  std::string reason;
};
// Apply the tier rule; reason names the rule that fired (and any cap).
Tier assign_tier(const TierEvidence& evidence);

} // namespace rfdb::report
