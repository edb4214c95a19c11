// The tier rule: a line's stars and the reason shown for them (see tiers.hpp).
#include "report/tiers.hpp"

#include "report/findings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rfdb::report {

Tier assign_tier(const TierEvidence& e)
{
  const char* unit = e.imported_stars > 0 || e.kb_source ? "sources" : "runs";
  Tier t;
  if (!e.run_evidence && e.kb_source && e.imported_stars == 0) {
    // kb records alone: ★★ when validated or reproduced (GEAK's count: the largest `reproductions`
    // one of them states, as `rfdb lookup` counts it), else ★; never more until a run of ours
    // reproduces them.
    if (e.kb_validated) {
      return {2, "kb record validated, no run reproduces it yet"};
    }
    if (e.kb_geak_reproductions >= 2) {
      return {
          2, fmt::format("kb record reproduced {} times, no run reproduces it yet", e.kb_geak_reproductions)};
    }
    return {1, "kb record, not validated, no run reproduces it yet"};
  }
  if (!e.run_evidence) {
    // Imported knowledge alone: its self-rated tier, capped until a run confirms it.
    const int stars = std::clamp(e.imported_stars, 1, 3);
    t = {std::min(stars, k_imported_cap), fmt::format("imported, self-rated {}", stars_text(stars))};
    if (stars > k_imported_cap) {
      t.reason += fmt::format(", capped at {} until a run confirms it", stars_text(k_imported_cap));
    }
    return t;
  }
  if (e.verified_e2e) {
    t = {3, "verified end-to-end win"};
  } else if (e.kb_run_reproductions >= 2) {
    t = {3, fmt::format("kb record reproduced by {} independent runs", e.kb_run_reproductions)};
  } else if (e.clean_sources >= 2 && e.kb_validated && e.clean_sources - e.clean_runs == 1 &&
             e.imported_stars < 2) {
    t = {3, e.clean_runs == 1 ? std::string("one clean run and a validated kb record")
                              : fmt::format("{} clean runs and a validated kb record", e.clean_runs)};
  } else if (e.clean_sources >= 2) {
    t = {3, fmt::format("{} independent clean {}", e.clean_sources, unit)};
  } else if (e.clean_sources == 1) {
    t = {2, e.clean_runs == 1 ? "one clean run" : "one clean source"};
  } else if (e.agreeing_sources >= 2) {
    t = {2, fmt::format("{} agreeing {}", e.agreeing_sources, unit)};
  } else {
    t = {1, "single run, not verified end to end"};
  }
  if ((e.validation_lost || !e.kb_retired.empty()) && t.stars > 2) {
    t.stars = 2;
  }
  if (!e.kb_retired.empty()) {
    t.reason += fmt::format("; kb record {} retired, at most {}", e.kb_retired, stars_text(2));
  }
  if (e.validation_lost) {
    t.reason += fmt::format("; Director validation lost ({}), at most {}",
                            e.lost_speedup ? fixed(*e.lost_speedup, 4) + "\u00d7" : std::string("no figure"),
                            stars_text(2));
  }
  return t;
}

} // namespace rfdb::report
