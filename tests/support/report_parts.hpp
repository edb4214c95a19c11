// The report's input built with its attempts folded in parts (test support).
#pragma once

#include "report/analysis.hpp"
#include "report/findings.hpp"

#include <cstddef>
#include <filesystem>
#include <string>

namespace rfdb::test {

// The playbook (and, with for_cards, every card after it, each as
// "==> NAME <==" and its text) of the store at `db_path` as `rfdb report`
// writes it (as of the newest run, priors by class,gfx), its attempts dealt
// in turn to `parts` folds: part 0 the builder's own add_attempt, the others
// AttemptFolds taken back at the end. drop_first: every attempt is read once
// more before, then dropped. Failures are reported by EXPECTs.
std::string report_in_parts(const std::filesystem::path& db_path, std::size_t parts, bool for_cards,
                            bool drop_first = false);

// The analysis `rfdb report` renders for the store at `db_path` (as of the
// newest run, priors by class,gfx). Failures are reported by EXPECTs.
report::Analysis analysis_of(const std::filesystem::path& db_path);

} // namespace rfdb::test
