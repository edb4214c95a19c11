// "## Newest run at a glance": the Mermaid quadrant chart of the newest run's
// heads, and the route each head verdict implies (also the Saturated heads
// section's). Part of the playbook (playbook.hpp).
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/model.hpp"

#include <string>
#include <string_view>

namespace rfdb::report {

// The ```mermaid quadrantChart block for the newest run's heads. The chart
// splits at 0.5, so each axis is mapped piecewise linearly to put its routing
// threshold there: x = roofline_pct / target_eff (0.9, the saturated band
// edge → 0.5; 1.0 → 1), y = pct_gpu_time (5 %, the head threshold → 0.5;
// ≥ 50 % → 1). Quadrants: reduce bytes (top right), tune (top left), low
// priority below; a disputed head's point is labelled "<kernel> disputed".
// "" when no head of that run has a verdict.
std::string render_quadrant_chart(const Analysis& analysis);

// The route a head verdict implies: "reduce bytes" (saturated head), "tune"
// (moderate/underperforming head), "low priority" (pct_gpu_time < 5),
// "no verdict" (unknown headroom), k_disputed_route (a saturated measured
// head whose engine disputes the band: not rerouted).
inline constexpr std::string_view k_disputed_route = "disputed, not rerouted";
std::string head_route(const HeadVerdict& head);

} // namespace rfdb::report
