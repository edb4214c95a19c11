#include "calibrate/from_store.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cctype>

namespace rfdb::calibrate {

namespace {

// One spelling per regime key: decode | prefill | mixed (both, prefill+decode)
// | "" (none; grouped as unknown); anything else is unknown.
std::string regime_key(std::string_view raw)
{
  const std::string r = util::lower_ascii(raw);
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
    o.pred_roofline_pct = a.pred_roofline_pct;
    o.pred_target_eff = a.pred_target_eff;
    o.pred_attainable_speedup = a.pred_attainable_speedup;
    o.pred_headroom_class = a.pred_headroom_class;
    o.pred_confidence = a.pred_confidence;
    o.pred_suspect = a.pred_suspect.value_or(false);
    o.pred_dispatch_bound = a.pred_dispatch_bound;
    o.pred_pct_gpu_time = a.pred_pct_gpu_time;
    o.post_efficiency = a.post_efficiency;
    o.output_parity = a.output_parity;
    o.reject_reason = a.reject_reason;
    out.push_back(std::move(o));
  }
  return out;
}

} // namespace rfdb::calibrate
