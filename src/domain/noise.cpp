#include "domain/noise.hpp"

#include "domain/roofline.hpp"
#include "domain/version.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rfdb::domain {

std::optional<double> spread_pct(std::span<const double> samples)
{
  if (samples.empty()) {
    return std::nullopt;
  }
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  if (!(median > 0.0)) {
    return std::nullopt;
  }
  return (v.back() - v.front()) / median * 100.0;
}

bool is_reference_bench_role(std::string_view role)
{
  return role == "baseline" || role == "validation_base" || role == "overlay_ref";
}

E2eBand run_e2e_band(std::optional<double> measured_spread_pct, double fixed_pct)
{
  if (measured_spread_pct && std::isfinite(*measured_spread_pct) && *measured_spread_pct > fixed_pct) {
    return {*measured_spread_pct, BandSource::measured};
  }
  return {fixed_pct, BandSource::fixed};
}

E2eBand run_e2e_band(std::optional<double> measured_spread_pct)
{
  return run_e2e_band(measured_spread_pct, k_e2e_noise_pct);
}

bool is_e2e_gain(double delta_pct, const E2eBand& band)
{
  return delta_pct > band.pct;
}

std::string_view to_string(BandSource source)
{
  return source == BandSource::measured ? "measured" : "fixed";
}

E2eJudgement judge_e2e(double delta_pct, const E2eBand& band)
{
  if (is_e2e_loss(delta_pct)) {
    return E2eJudgement::loss;
  }
  return is_e2e_gain(delta_pct, band) ? E2eJudgement::beyond : E2eJudgement::inside;
}

std::string_view to_string(E2eJudgement judgement)
{
  switch (judgement) {
  case E2eJudgement::beyond:
    return "beyond";
  case E2eJudgement::inside:
    return "inside";
  case E2eJudgement::loss:
    return "loss";
  }
  return "inside";
}

bool profiler_undercounts_hbm(std::string_view gfx, std::string_view tool_version)
{
  if (gfx != k_hbm_undercount_gfx) {
    return false;
  }
  const auto found = find_profiler_version(tool_version);
  if (!found) {
    return false; // unknown version: not flagged
  }
  static const Pep440Version fixed = [] {
    auto v = parse_version(k_hbm_fixed_profiler_version);
    return v ? std::move(*v) : Pep440Version{};
  }();
  // The release part alone: a dev, pre or post build of 3.5 counts as 3.5
  // (as `--stack rocprof-compute>=3.5` takes it, domain::satisfies).
  Pep440Version release;
  release.release = found->release;
  return release < fixed;
}

} // namespace rfdb::domain
