// The stored form of a multi-case measured roofline's case mix
// (verdicts.case_mix, attempts.pred_case_mix): a JSON array of
// {case_id, regime, time_share, roofline_pct, attainable_speedup, dominant}
// (fractions and ×, as domain::CaseShare).
#pragma once

#include "domain/roofline.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// The column text of `cases`; nullopt (NULL) when there are none.
std::optional<std::string> case_mix_json(std::span<const domain::CaseShare> cases);

// The cases of a column text; empty for NULL text, "" or anything that is
// not such an array (an entry without a case_id or numbers is skipped).
std::vector<domain::CaseShare> parse_case_mix(std::string_view text);

} // namespace rfdb::store
