// The roofline rules (declared in domain/roofline.hpp): seed target_eff,
// headroom bands, attainable speedup, Amdahl gain and the noise bands.
#include "domain/roofline.hpp"

#include <algorithm>

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

} // namespace rfdb::domain
