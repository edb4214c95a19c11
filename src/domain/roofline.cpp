// The roofline rules (declared in domain/roofline.hpp): seed target_eff,
// headroom bands, attainable speedup, Amdahl gain and the noise bands.
#include "domain/roofline.hpp"

#include <algorithm>
#include <cmath>

namespace rfdb::domain {

std::optional<double> seed_target_eff(OpClass op_class)
{
  switch (op_class) {
  case OpClass::gemm:
  case OpClass::moe:
    return 0.90;
  case OpClass::elementwise:
    return 0.875;
  case OpClass::attn:
    return 0.50;
  case OpClass::unknown:
    break;
  }
  return std::nullopt;
}

std::optional<double> seed_target_eff(std::string_view op_class)
{
  const auto c = parse<OpClass>(op_class);
  return c ? seed_target_eff(*c) : std::nullopt;
}

HeadroomClass headroom_band(std::optional<double> roofline_pct, std::optional<double> target_eff)
{
  constexpr double k_tolerance = 1e-9;
  if (!roofline_pct || !target_eff || !(*target_eff > 0.0) || !(*roofline_pct >= 0.0)) {
    return HeadroomClass::unknown;
  }
  if (*roofline_pct + k_tolerance >= k_saturated_edge * *target_eff) {
    return HeadroomClass::saturated;
  }
  if (*roofline_pct + k_tolerance >= k_moderate_edge * *target_eff) {
    return HeadroomClass::moderate;
  }
  return HeadroomClass::underperforming;
}

bool is_banded(std::string_view headroom_class)
{
  const auto h = parse<HeadroomClass>(headroom_class);
  return h && *h != HeadroomClass::unknown;
}

std::string_view band_headroom(std::optional<double> roofline_pct, std::optional<double> target_eff)
{
  return to_string(headroom_band(roofline_pct, target_eff));
}

std::optional<double> attainable_speedup(std::optional<double> roofline_pct, std::optional<double> target_eff)
{
  if (!roofline_pct || !target_eff || !(*roofline_pct > 0.0)) {
    return std::nullopt;
  }
  return std::max(1.0, *target_eff / *roofline_pct);
}

double amdahl_gain_pct(double pct_gpu_time, double speedup)
{
  return pct_gpu_time * (1.0 - 1.0 / speedup);
}

bool is_isolated_win(double speedup, double iso_noise)
{
  return speedup > 1.0 + iso_noise;
}

bool is_e2e_gain(double delta_pct, double e2e_noise_pct)
{
  return delta_pct > e2e_noise_pct;
}

bool is_e2e_loss(double delta_pct, double e2e_noise_pct)
{
  return delta_pct <= -e2e_noise_pct;
}

bool beats_prediction(double speedup, double attainable, double iso_noise)
{
  return speedup > attainable * (1.0 + iso_noise);
}

bool is_disputed(std::string_view headroom_class, std::optional<double> headroom_ratio,
                 const std::optional<std::string>& guidance)
{
  if (!is(headroom_class, HeadroomClass::saturated)) {
    return false;
  }
  return (headroom_ratio && *headroom_ratio >= k_disputed_headroom_ratio) ||
         (guidance && *guidance == "actionable");
}

std::optional<double> case_mix_attainable(std::span<const CaseShare> cases)
{
  double total = 0.0;
  for (const auto& c : cases) {
    if (!(c.time_share >= 0.0) || !(c.attainable_speedup > 0.0)) {
      return std::nullopt;
    }
    total += c.time_share;
  }
  if (!(total > 0.0) || !std::isfinite(total)) {
    return std::nullopt;
  }
  double inverse = 0.0;
  for (const auto& c : cases) {
    inverse += (c.time_share / total) / c.attainable_speedup; // a case holding no time adds nothing
  }
  return 1.0 / inverse;
}

std::string case_mix_regime(std::span<const CaseShare> cases)
{
  std::vector<std::pair<std::string, double>> sums;
  std::string dominant;
  for (const auto& c : cases) {
    if (c.dominant) {
      dominant = c.regime;
    }
    if (c.regime.empty()) {
      continue;
    }
    const auto it =
        std::find_if(sums.begin(), sums.end(), [&](const auto& s) { return s.first == c.regime; });
    if (it == sums.end()) {
      sums.emplace_back(c.regime, c.time_share);
    } else {
      it->second += c.time_share;
    }
  }
  std::string best;
  double best_share = -1.0;
  for (const auto& [regime, share] : sums) {
    constexpr double k_tie = 1e-9;
    if (share > best_share + k_tie || (std::fabs(share - best_share) <= k_tie && regime == dominant)) {
      best = regime;
      best_share = share;
    }
  }
  return best;
}

const CaseShare* case_mix_source(std::span<const CaseShare> cases, double speedup, double iso_noise)
{
  const auto mix = case_mix_attainable(cases);
  const auto dominant =
      std::find_if(cases.begin(), cases.end(), [](const CaseShare& c) { return c.dominant; });
  const bool beats_mix = mix && beats_prediction(speedup, *mix, iso_noise);
  const bool beats_dominant =
      dominant != cases.end() && beats_prediction(speedup, dominant->attainable_speedup, iso_noise);
  if (!beats_mix && !beats_dominant) {
    return nullptr;
  }
  const CaseShare* best = nullptr;
  for (const auto& c : cases) {
    if (beats_prediction(speedup, c.attainable_speedup, iso_noise)) {
      continue;
    }
    if (best == nullptr || c.time_share > best->time_share) {
      best = &c;
    }
  }
  return best;
}

} // namespace rfdb::domain
