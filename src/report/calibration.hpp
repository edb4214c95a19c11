// The playbook's "## Calibration" section (internal to the playbook renderer).
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/playbook_detail.hpp"

namespace rfdb::report::detail {

// "## Calibration": per op class predicted vs measured, the e2e transfer of
// the priors and the largest misses beyond the isolated noise band.
Blocks calibration_section(const Analysis& analysis);

} // namespace rfdb::report::detail
