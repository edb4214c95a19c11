// Store evidence rows → calibrate::Observation (gfx, regime grouped by the domain rules).
#include "calibrate/from_store.hpp"

#include "domain/normalize.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace rfdb::calibrate {

namespace {

// The regime of a priors key: domain::regime_of, with both spelled "mixed"
// (k_regimes); unknown text and "" group as unknown.
std::string regime_key(std::string_view raw)
{
  const domain::Regime r = domain::regime_of(raw);
  return r == domain::Regime::both ? std::string("mixed") : std::string(domain::to_string(r));
}

} // namespace

std::vector<Observation> observations_from(const std::vector<store::EvidenceAttempt>& attempts)
{
  std::vector<Observation> out;
  out.reserve(attempts.size());
  for (const auto& a : attempts) {
    Observation o;
    o.run_id = a.run_id;
    o.run_date = a.run_date;
    o.round = a.round;
    o.short_name = a.short_name;
    o.lever = a.lever;
    o.op_class = a.op_class;
    o.gfx = a.gfx.empty() ? a.gfx : domain::normalize_gfx(a.gfx).value_or("unknown");
    o.regime = regime_key(a.regime);
    o.isolated_speedup = a.isolated_speedup;
    o.e2e_delta_pct = a.e2e_delta_pct;
    o.prediction = a.prediction;
    o.post_efficiency = a.post_efficiency;
    o.output_parity = a.output_parity;
    o.reject_reason = a.reject_reason;
    out.push_back(std::move(o));
  }
  return out;
}

} // namespace rfdb::calibrate
