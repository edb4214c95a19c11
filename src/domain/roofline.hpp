// The roofline rules of rfdb in one place (DESIGN.md §1, §4): the seed
// target_eff per op_class, the headroom bands, attainable speedup, the
// Amdahl e2e ceiling, and the isolated and e2e noise bands that decide what
// counts as a win. ingest, calibrate and report all use these.
#pragma once

#include "domain/vocab.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace rfdb::domain {

// Isolated noise band (fraction): an isolated speedup s is a win only when
// s > 1 + k_iso_noise (1.034), and beats a prediction only when
// s > attainable × (1 + k_iso_noise). calibrate's --iso-noise defaults to it.
inline constexpr double k_iso_noise = 0.034;
// e2e noise band (percent): an e2e throughput delta d is a gain only when
// d > k_e2e_noise_pct, a loss when d ≤ −k_e2e_noise_pct.
inline constexpr double k_e2e_noise_pct = 0.5;

// Headroom band edges as fractions of target_eff (band_headroom).
inline constexpr double k_saturated_edge = 0.9;
inline constexpr double k_moderate_edge = 0.6;

// The op_classes that have a seed target_eff, in report order.
inline constexpr std::array<std::string_view, 4> k_seeded_op_classes = {"gemm", "moe", "elementwise", "attn"};

// Seed target_eff prior (fraction) per canonical op_class, DESIGN.md §1:
// gemm 0.90, moe 0.90, elementwise 0.875, attn 0.50; any other text
// (unknown, "", a producer spelling) → nullopt.
std::optional<double> seed_target_eff(std::string_view op_class);
std::optional<double> seed_target_eff(OpClass op_class);

// headroom_class banded against target_eff: roofline_pct (fraction)
// ≥ 0.9·target_eff → saturated, ≥ 0.6·target_eff → moderate, else
// underperforming; unknown when either is missing, roofline_pct < 0 or
// target_eff ≤ 0. A 1e-9 tolerance keeps 0.81 vs 0.9·0.90 on the saturated
// side despite rounding.
HeadroomClass headroom_band(std::optional<double> roofline_pct, std::optional<double> target_eff);

// True when a stored headroom_class is one of the three bands (saturated,
// moderate, underperforming): false for unknown, "" and any other text.
bool is_banded(std::string_view headroom_class);

// The stored spelling of headroom_band (band_headroom(0.5, 0.9) == "underperforming").
std::string_view band_headroom(std::optional<double> roofline_pct, std::optional<double> target_eff);

// Attainable speedup (×) of a kernel at roofline_pct against target_eff:
// max(1, target_eff / roofline_pct); nullopt when either is missing or
// roofline_pct ≤ 0.
std::optional<double> attainable_speedup(std::optional<double> roofline_pct,
                                         std::optional<double> target_eff);

// The Amdahl e2e gain (percent) of speeding a kernel that takes
// pct_gpu_time percent of GPU time up by `speedup` (×):
// pct_gpu_time × (1 − 1/speedup). The caller checks speedup > 0.
double amdahl_gain_pct(double pct_gpu_time, double speedup);

// True when an isolated speedup s (×) is beyond the noise band: s > 1 + iso_noise.
bool is_isolated_win(double speedup, double iso_noise = k_iso_noise);

// True when an e2e delta d (percent) is beyond the noise band: d > e2e_noise_pct.
bool is_e2e_gain(double delta_pct, double e2e_noise_pct = k_e2e_noise_pct);

// True when an e2e delta d (percent) is a loss: d ≤ −e2e_noise_pct.
bool is_e2e_loss(double delta_pct, double e2e_noise_pct = k_e2e_noise_pct);

// True when an isolated speedup beats its predicted attainable speedup by
// more than the noise band: s > attainable × (1 + iso_noise).
bool beats_prediction(double speedup, double attainable, double iso_noise = k_iso_noise);

} // namespace rfdb::domain
