// Conditioned "also verify" notes from surprising negatives (rules in
// report/findings.hpp): an isolated win that lost end to end, and a
// measurement that beat the roofline model's predicted attainable speedup.
#include "report/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace rfdb::report {

namespace {

constexpr double k_iso_win = 1.0 + k_iso_noise;

// The condition a caution names: reuse key, workload and model.
std::string condition_text(const AttemptInfo& a, const ReuseKey& key)
{
  std::string cond = key.text();
  if (const std::string w = workload_text(a.isl, a.osl, a.conc); !w.empty()) {
    cond += "; " + w;
  }
  if (!a.model.empty()) {
    cond += "; model " + md_text(a.model);
  }
  return cond;
}

// "`fused_moe_kernel`", or "the serving config" for a config trial.
std::string target_text(const AttemptInfo& a)
{
  return is_config_trial(a) ? std::string("the serving config") : md_code(a.short_name);
}

} // namespace

bool has_usable_prediction(const AttemptInfo& a)
{
  const std::string& h = a.pred_headroom_class;
  return !a.pred_suspect.value_or(false) && a.pred_attainable_speedup && *a.pred_attainable_speedup > 0.0 &&
         (h == "saturated" || h == "moderate" || h == "underperforming");
}

std::vector<Caution> build_cautions(const std::vector<AttemptInfo>& attempts)
{
  std::vector<Caution> out;
  for (const AttemptInfo& a : attempts) {
    const ReuseKey key = attempt_reuse_key(a);
    const std::string cond = condition_text(a, key);
    const std::string lever = md_text(a.lever.empty() ? a.backend : a.lever);
    const std::string where =
        fmt::format("in run {} ({})", md_code(a.run_id), a.run_date.empty() ? "undated" : a.run_date);
    const Caution base{CautionKind::e2e_loss,
                       key,
                       a.run_id,
                       a.run_date,
                       a.short_name,
                       lever_match_key(a.lever.empty() ? a.backend : a.lever),
                       ""};
    const bool iso_win = a.isolated_speedup && *a.isolated_speedup > k_iso_win;
    if (iso_win && a.e2e_delta_pct && *a.e2e_delta_pct <= -k_e2e_noise_pct) {
      Caution c = base;
      c.text = fmt::format("Also verify the end-to-end delta before reusing {} on {} ({}): isolated {}\u00d7 "
                           "but e2e {} {}.",
                           lever, target_text(a), cond, fixed(*a.isolated_speedup, 3),
                           e2e_range_text(a.e2e_delta_pct, a.e2e_delta_pct), where);
      out.push_back(std::move(c));
    }
    // A placeholder attainable of a no-verdict row (suspect, dispatch-bound,
    // unmodelled) is not a prediction, so it cannot be contradicted.
    if (a.isolated_speedup && has_usable_prediction(a) &&
        *a.isolated_speedup > *a.pred_attainable_speedup * k_iso_win) {
      Caution c = base;
      c.kind = CautionKind::model_contradiction;
      c.text = fmt::format(
          "Also verify the roofline model for {} ({}): {} measured isolated {}\u00d7, beyond the "
          "predicted attainable {}\u00d7 (roofline_pct {}, target_eff {}) {}; re-check the "
          "byte/FLOP counts and target_eff before routing on the prediction.",
          target_text(a), cond, lever, fixed(*a.isolated_speedup, 3), fixed(*a.pred_attainable_speedup, 3),
          a.pred_roofline_pct ? fixed(*a.pred_roofline_pct, 3) : "-",
          a.pred_target_eff ? fixed(*a.pred_target_eff, 3) : "-", where);
      out.push_back(std::move(c));
    }
  }
  std::sort(out.begin(), out.end(), [](const Caution& x, const Caution& y) {
    return std::forward_as_tuple(y.run_date, x.run_id, x.kind, x.short_name, x.lever_key, x.text) <
           std::forward_as_tuple(x.run_date, y.run_id, y.kind, y.short_name, y.lever_key, y.text);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Caution& x, const Caution& y) {
                          return x.kind == y.kind && x.run_id == y.run_id && x.short_name == y.short_name &&
                                 x.lever_key == y.lever_key;
                        }),
            out.end());
  return out;
}

} // namespace rfdb::report
