// Synthetic run series for the shift detector (issue 30, docs/estimator.md "Shifts").
//
// shift_series(seed, step) builds 12 runs of one class (gemm on gfx950), one
// run every 7 days from 2026-03-02, across a vLLM upgrade: runs 1–6 on vllm
// 0.24.1, runs 7–12 on 0.26.0. Each run holds one observation with a
// high-confidence prediction (roofline_pct = e / s at s = 1.5), so its
// achieved efficiency is e = 0.26 + N(0, 0.02²) for runs 1–6 and
// 0.26 + step + N(0, 0.02²) for runs 7–12. step = 0.08 is the planted shift of
// the tests, step = 0 the null series (same noise). The noise is drawn from
// calibrate::Prng(seed) by Box–Muller, so a seed gives the same series on every
// platform. Regenerated in memory by every test run: nothing is written.
//
// With a transfer_step, each run also measures an e2e delta d = x · c, c the
// Amdahl ceiling of its 20 % pct_gpu_time at s = 1.5 (6.67 %), x = 0.40 +
// N(0, 0.05²) for runs 1–6 and 0.40 + transfer_step + N(0, 0.05²) after (its
// noise drawn after e's, from the same stream): the e2e transfer ratio's series.
#pragma once

#include "calibrate/priors.hpp"
#include "calibrate/shifts.hpp"
#include "calibrate/stats.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::test {

inline constexpr int k_series_runs = 12;
inline constexpr int k_series_upgrade_at = 6; // runs before the upgrade
inline constexpr double k_series_base_e = 0.26;
inline constexpr double k_series_noise_sd = 0.02;
inline constexpr double k_series_speedup = 1.5;
inline constexpr double k_series_pct_gpu_time = 20.0;
inline constexpr double k_series_base_transfer = 0.40;
inline constexpr double k_series_transfer_sd = 0.05;

struct ShiftSeries {
  std::vector<calibrate::Observation> observations;  // date order
  std::map<std::string, calibrate::RunStack> stacks; // run_id → backend, version
  [[nodiscard]] std::string run_id(int k) const
  {
    return observations.at(static_cast<std::size_t>(k)).run_id;
  }
};

// One standard normal draw (Box–Muller, the cosine branch).
inline double standard_normal(calibrate::Prng& rng)
{
  const auto uniform = [&] { return (static_cast<double>(rng.next_u64() >> 11U) + 0.5) * 0x1.0p-53; };
  const double u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

inline ShiftSeries shift_series(std::uint64_t seed, double step,
                                std::optional<double> transfer_step = std::nullopt)
{
  calibrate::Prng rng(seed);
  ShiftSeries out;
  for (int k = 0; k < k_series_runs; ++k) {
    const bool after = k >= k_series_upgrade_at;
    const double e = k_series_base_e + (after ? step : 0.0) + k_series_noise_sd * standard_normal(rng);
    calibrate::Observation o;
    o.run_id = fmt::format("e2e_synthetic_gemm_run{:02}", k + 1);
    // 2026-03-02 + 7k days, within March–May.
    const int day = 2 + 7 * k;
    const int month = day <= 31 ? 3 : (day <= 61 ? 4 : 5);
    const int dom = day <= 31 ? day : (day <= 61 ? day - 31 : day - 61);
    o.run_date = fmt::format("2026-{:02}-{:02}", month, dom);
    o.round = "1";
    o.short_name = "gemm_a8w8_kernel";
    o.lever = "tile_config";
    o.op_class = "gemm";
    o.gfx = "gfx950";
    o.regime = "decode";
    o.isolated_speedup = k_series_speedup;
    o.prediction.source_kind = "analytic";
    o.prediction.headroom_class = "underperforming";
    o.prediction.confidence = "high";
    o.prediction.roofline_pct = e / k_series_speedup;
    o.prediction.attainable_speedup = 3.0;
    o.prediction.pct_gpu_time = k_series_pct_gpu_time;
    if (transfer_step) {
      const double x = k_series_base_transfer + (after ? *transfer_step : 0.0) +
                       k_series_transfer_sd * standard_normal(rng);
      o.e2e_delta_pct = x * k_series_pct_gpu_time * (1.0 - 1.0 / k_series_speedup);
    }
    o.prediction.suspect = false;
    o.output_parity = "pass";
    out.stacks[o.run_id] = {"vllm", after ? "0.26.0" : "0.24.1"};
    out.observations.push_back(std::move(o));
  }
  return out;
}

} // namespace rfdb::test
