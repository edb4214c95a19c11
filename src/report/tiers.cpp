// The tier rule: a line's stars and the reason shown for them (see tiers.hpp).
#include "report/tiers.hpp"

#include "report/findings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rfdb::report {

Tier assign_tier(const TierEvidence& e)
{
  const char* unit = e.imported_stars > 0 ? "sources" : "runs";
  Tier t;
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
  } else if (e.clean_sources >= 2) {
    t = {3, fmt::format("{} independent clean {}", e.clean_sources, unit)};
  } else if (e.clean_sources == 1) {
    t = {2, e.clean_runs == 1 ? "one clean run" : "one clean source"};
  } else if (e.agreeing_sources >= 2) {
    t = {2, fmt::format("{} agreeing {}", e.agreeing_sources, unit)};
  } else {
    t = {1, "single run, not verified end to end"};
  }
  if (e.validation_lost && t.stars > 2) {
    t.stars = 2;
  }
  if (e.validation_lost) {
    t.reason += fmt::format("; Director validation lost ({}), at most {}",
                            e.lost_speedup ? fixed(*e.lost_speedup, 4) + "\u00d7" : std::string("no figure"),
                            stars_text(2));
  }
  return t;
}

} // namespace rfdb::report
