// The playbook's "## What works", "## Cautions" and "## Methods and seams"
// sections (internal to the playbook renderer).
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/playbook_detail.hpp"

namespace rfdb::report::detail {

// "## What works": the findings per reuse key, capped (works.cpp).
Blocks what_works_section(const Analysis& analysis);
// "## Cautions": run cautions and imported negatives, capped (works.cpp).
Blocks cautions_section(const Analysis& analysis);
// "## Methods and seams": imported methods, seam facts and routing notes.
Blocks methods_section(const Analysis& analysis);

} // namespace rfdb::report::detail
