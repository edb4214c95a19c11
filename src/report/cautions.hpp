// Cautions: conditioned "also verify" notes from surprising negatives in the
// runs and imported negatives (the rule: findings.hpp, "Cautions").
#pragma once

#include "report/findings.hpp"
#include "report/model.hpp"

#include <string>
#include <vector>

namespace rfdb::report {

// Run cautions first (in this order within a run), then imported ones.
enum class CautionKind {
  e2e_loss,
  model_contradiction,
  lost_validation,
  parity_failure,
  no_transfer,
  imported_negative,
  kb_retired // a GEAK kb record retired by its ledger or its own fields (report/kb_lines.hpp)
};

// Imported negatives and retired kb records: the Cautions section counts them apart from the
// run cautions.
inline bool is_imported_caution(CautionKind kind)
{
  return kind == CautionKind::imported_negative || kind == CautionKind::kb_retired;
}

// A conditioned "also verify" note from a surprising negative.
struct Caution {
  CautionKind kind = CautionKind::e2e_loss;
  ReuseKey key;
  std::string run_id; // "" for an imported negative
  std::string run_date;
  std::string short_name;
  std::string lever_key;
  std::string text; // one line, starts with "Also verify"
};

// Cautions from the scoped attempts and imported negatives, deduplicated:
// run cautions newest run first, then imported ones newest first.
std::vector<Caution> build_cautions(const ReportInput& scoped);

// True when the attempt's prediction is a real verdict: not suspect, headroom
// saturated|moderate|underperforming and an attainable_speedup > 0. The
// attainable 1.0 of a no-verdict row is a placeholder, not a prediction.
bool has_usable_prediction(const AttemptInfo& attempt);

} // namespace rfdb::report
