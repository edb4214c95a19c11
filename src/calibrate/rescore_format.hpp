// Rendering `rfdb rescore` (docs/rescore.md): a text table per run, or JSON (docs/json.md).
#pragma once

#include "calibrate/rescore.hpp"

#include <string>

namespace rfdb::calibrate {

// Which verdicts a rendering lists: those with a changed decision (the default), or all.
enum class RescoreRows { changed, all };

// One table per run (its rescored verdicts), then the summary line. Units: target_eff and
// roofline_pct fractions 0–1 (4 decimals), attainable × (3), pct_gpu_time and expected gain
// percent 0–100 (2). A verdict without a band shows "no band (reason)".
std::string render_rescore_table(const RescoreResult& result, RescoreRows rows);

// The same as one JSON document: as_of, by, run, summary, verdicts (each with stored,
// today and before, and its changes). Computed numbers rounded to 4 decimals.
std::string render_rescore_json(const RescoreResult& result, RescoreRows rows);

// The summary line: "N verdicts rescored (…) in R rounds of U runs; today's priors (as of D):
// B band changes (S into or out of saturated), K head rank changes, G skip-gate changes;
// priors before each run: …".
std::string rescore_summary(const RescoreResult& result);

} // namespace rfdb::calibrate
