// Internal to the playbook renderer: the markdown helpers and the section
// renderers that playbook.cpp and calibration.cpp share. Not a public API.
#pragma once

#include "report/findings.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report::detail {

// A document is a list of blocks (paragraphs, lists, tables, fences) joined
// by one blank line, which is all markdownlint's spacing rules ask for.
using Blocks = std::vector<std::string>;

// "1 run", "2 runs".
std::string plural(std::size_t n, std::string_view one, std::string_view many);
// A markdown table without a trailing newline; `align` holds "---" / "---:".
std::string table(const std::vector<std::string>& header, const std::vector<std::string>& align,
                  const std::vector<std::vector<std::string>>& rows);

// "## Calibration": per op class predicted vs measured, the e2e transfer of
// the priors and the largest misses beyond the isolated noise band.
Blocks calibration_section(const Analysis& analysis);
// "## What works": the findings per reuse key, capped (works.cpp).
Blocks what_works_section(const Analysis& analysis);
// "## Cautions": run cautions and imported negatives, capped (works.cpp).
Blocks cautions_section(const Analysis& analysis);
// "## Methods and seams": imported methods, seam facts and routing notes.
Blocks methods_section(const Analysis& analysis);

} // namespace rfdb::report::detail
