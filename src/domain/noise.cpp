#include "domain/noise.hpp"

#include "domain/roofline.hpp"

#include <algorithm>
#include <cctype>
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

namespace {

// The first two dotted numbers of the text's first run of digits ("v3.4.0"
// → 3, 4; "3" → 3, 0); nullopt when the text holds no digit.
std::optional<std::pair<int, int>> release_major_minor(std::string_view text)
{
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
    ++i;
  }
  if (i == text.size()) {
    return std::nullopt;
  }
  auto number = [&](int& out) {
    out = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      out = std::min(out * 10 + (text[i] - '0'), 1'000'000);
      ++i;
    }
  };
  int major = 0;
  int minor = 0;
  number(major);
  if (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0) {
    ++i;
    number(minor);
  }
  return std::make_pair(major, minor);
}

} // namespace

bool profiler_undercounts_hbm(std::string_view gfx, std::string_view tool_version)
{
  if (gfx != k_hbm_undercount_gfx) {
    return false;
  }
  const auto release = release_major_minor(tool_version);
  return release && *release < std::make_pair(k_hbm_fixed_profiler_major, k_hbm_fixed_profiler_minor);
}

} // namespace rfdb::domain
