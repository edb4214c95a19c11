// The vocabulary of priors.hpp: stable names, the seed priors and the
// parsers for the command-line values of `rfdb priors` (--by, --explain,
// --confidence-weights). Kept apart from the estimator in priors.cpp.
#include "calibrate/priors.hpp"
#include "domain/normalize.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rfdb::calibrate {

static_assert(static_cast<int>(ExclusionReason::before_shift) + 1 == k_exclusion_reason_count,
              "k_exclusion_reason_count must match ExclusionReason");

const char* to_string(ExclusionReason reason)
{
  switch (reason) {
  case ExclusionReason::bad_run_date:
    return "bad_run_date";
  case ExclusionReason::before_since:
    return "before_since";
  case ExclusionReason::after_as_of:
    return "after_as_of";
  case ExclusionReason::unknown_class:
    return "unknown_class";
  case ExclusionReason::parity_fail:
    return "parity_fail";
  case ExclusionReason::no_speedup:
    return "no_speedup";
  case ExclusionReason::below_noise:
    return "below_noise";
  case ExclusionReason::suspect:
    return "suspect";
  case ExclusionReason::dispatch_bound:
    return "dispatch_bound";
  case ExclusionReason::unknown_headroom:
    return "unknown_headroom";
  case ExclusionReason::bad_roofline_pct:
    return "bad_roofline_pct";
  case ExclusionReason::bad_post_efficiency:
    return "bad_post_efficiency";
  case ExclusionReason::unknown_confidence:
    return "unknown_confidence";
  case ExclusionReason::biased_profiler:
    return "biased_profiler";
  case ExclusionReason::infeasible:
    return "infeasible";
  case ExclusionReason::zero_weight:
    return "zero_weight";
  case ExclusionReason::before_shift:
    return "before_shift";
  }
  return "unknown";
}

const char* to_string(ShiftWeighting weighting)
{
  return weighting == ShiftWeighting::since_shift ? "since_shift" : "down_weight";
}

const char* to_string(PriorsLevel level)
{
  switch (level) {
  case PriorsLevel::op_class:
    return "class";
  case PriorsLevel::op_class_gfx:
    return "class,gfx";
  case PriorsLevel::op_class_gfx_regime:
    return "class,gfx,regime";
  }
  return "class";
}

const char* to_string(PriorSource source)
{
  switch (source) {
  case PriorSource::seed:
    return "seed";
  case PriorSource::calibrated:
    return "calibrated";
  case PriorSource::parent:
    return "parent";
  }
  return "seed";
}

const char* to_string(TransferSource source)
{
  return source == TransferSource::calibrated ? "calibrated" : "raw";
}

bool parity_failed(const Observation& a)
{
  return domain::parity_failed(a.output_parity, a.reject_reason);
}

Result<PriorsKey> parse_priors_key(std::string_view text)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto colon = text.find(':', start);
    parts.emplace_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) {
      break;
    }
    start = colon + 1;
  }
  if (parts.size() > 3 || std::any_of(parts.begin(), parts.end(), [](auto& s) { return s.empty(); })) {
    return fail(ErrorCode::usage, fmt::format("bad key '{}': expected CLASS[:GFX[:REGIME]]", text));
  }
  parts[0] = util::lower_ascii(parts[0]);
  if (!domain::seed_target_eff(parts[0])) {
    return fail(ErrorCode::usage,
                fmt::format("unknown op class '{}' (expected gemm, moe, elementwise or attn)", parts[0]));
  }
  PriorsKey key{parts[0], std::nullopt, std::nullopt};
  if (parts.size() > 1) {
    key.gfx = domain::normalize_gfx(parts[1]);
    if (!key.gfx) {
      return fail(
          make_error(ErrorCode::usage,
                     fmt::format("'{}' is not a gfx target (expected gfxNNN such as gfx942 or gfx950, or a "
                                 "device name: MI300X, MI325X → gfx942; MI350X, MI355X → gfx950)",
                                 parts[1]))
              .with_hint("`rfdb runs` lists the gfx of every stored run"));
    }
  }
  if (parts.size() > 2) {
    const std::string regime = util::lower_ascii(parts[2]);
    if (std::find(k_regimes.begin(), k_regimes.end(), regime) == k_regimes.end()) {
      return fail(ErrorCode::usage,
                  fmt::format("unknown regime '{}' (expected decode, prefill, mixed or unknown)", parts[2]));
    }
    key.regime = regime;
  }
  return key;
}

Result<PriorsLevel> parse_priors_level(std::string_view text)
{
  for (const auto level :
       {PriorsLevel::op_class, PriorsLevel::op_class_gfx, PriorsLevel::op_class_gfx_regime}) {
    if (text == to_string(level)) {
      return level;
    }
  }
  return fail(ErrorCode::usage,
              fmt::format("bad --by '{}': expected class, class,gfx or class,gfx,regime", text));
}

Result<ConfidenceWeights> parse_confidence_weights(std::string_view text)
{
  ConfidenceWeights w;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    const auto item = text.substr(start, comma - start);
    const auto eq = item.find('=');
    const auto name = item.substr(0, eq);
    double* slot = nullptr;
    if (const auto c = domain::parse<domain::Confidence>(name)) {
      slot = *c == domain::Confidence::high ? &w.high : *c == domain::Confidence::medium ? &w.medium : &w.low;
    }
    double value = -1.0;
    if (eq != std::string_view::npos) {
      const char* first = item.data() + eq + 1;
      const char* last = item.data() + item.size();
      auto [ptr, ec] = std::from_chars(first, last, value);
      if (ec != std::errc{} || ptr != last || first == last) {
        value = -1.0;
      }
    }
    if (slot == nullptr || !std::isfinite(value) || value < 0.0) {
      return fail(
          ErrorCode::usage,
          fmt::format("bad confidence weight '{}': expected high=W,medium=W,low=W with W >= 0", item));
    }
    *slot = value;
    start = comma + 1;
  }
  return w;
}

std::string row_key(const PriorRow& row)
{
  std::string key = row.op_class;
  if (row.gfx) {
    key += ":" + *row.gfx;
  }
  if (row.regime) {
    key += ":" + *row.regime;
  }
  return key;
}

} // namespace rfdb::calibrate
