// The backend playbook of `rfdb report` as markdown (docs/playbook.md, issue 4).
//
// Pure: takes a ReportInput (or its Analysis) and returns the document; the
// same input gives byte-identical output (no clock, fmt with fixed
// precision, every list in a stable order). The document passes
// markdownlint with the default rules except MD013 (line length): one H1,
// blank lines around headings, lists, tables and fences, `mermaid` fences,
// "-" list markers, no trailing spaces or tabs; user text goes through
// md_text/md_code. What works, Cautions and Methods and seams live in
// works.hpp, the chart and head_route in quadrant.hpp, the Calibration
// section in calibration.hpp.
//
// Sections, in this order (the headings are a contract, issue 4):
//   # Backend playbook        provenance: runs, models, GPUs, date range, the
//                             imported findings merged (independent ones), as-of
//   ## target_eff priors      seed vs calibrated per key, the numbers of
//                             `rfdb priors --by class,gfx` (class rows and the
//                             --gfx scope's rows), interval, n, contradictions
//   ## Calibration            per op class predicted vs measured (real verdicts
//                             only), e2e transfer, misses beyond the noise band
//   ## Routing quality        rounds whose two rankings disagreed on the top kernel
//   ## What works             findings per reuse key, tiers, cap 40 (60 shown)
//   ## Cautions               conditioned "also verify" notes
//   ## Saturated heads        heads rerouted to byte reduction; disputed
//                             measured heads apart, with both figures
//   ## Newest run at a glance Mermaid quadrantChart of the newest run's heads
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/model.hpp"
#include "report/quadrant.hpp"

#include <array>
#include <string>
#include <string_view>

namespace rfdb::report {

inline constexpr std::array<std::string_view, 11> k_playbook_headings = {
    "# Backend playbook",
    "## target_eff priors",
    "## Shifts",
    "## Calibration",
    "## Routing quality",
    "## Would calibration have changed routing?",
    "## What works",
    "## Cautions",
    "## Methods and seams",
    "## Saturated heads",
    "## Newest run at a glance"};

// Render the whole playbook; ends with exactly one newline.
std::string render_playbook(const ReportInput& input);
// Same, from an analysis computed by analyze().
std::string render_playbook(const Analysis& analysis);

} // namespace rfdb::report
