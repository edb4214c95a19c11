#include "calibrate/from_store.hpp"

#include <algorithm>
#include <cctype>

namespace rfdb::calibrate {

namespace {

// One spelling per regime key: decode | prefill | mixed (both, prefill+decode)
// | "" (none; grouped as unknown); anything else is unknown.
std::string regime_key(std::string_view raw)
{
  std::string r(raw);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool decode = r.find("decode") != std::string::npos;
  const bool prefill = r.find("prefill") != std::string::npos;
  if (r.empty()) {
    return r;
  }
  if ((decode && prefill) || r == "both" || r == "mixed") {
    return "mixed";
  }
  return decode ? "decode" : (prefill ? "prefill" : "unknown");
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
    o.gfx = a.gfx.empty() ? a.gfx : normalize_gfx_spelling(a.gfx).value_or("unknown");
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
