// The playbook's "## Calibration" section: per op class, the attempts'
// predicted attainable_speedup against their measured isolated speedup, the
// e2e transfer from `rfdb priors`, and the largest misses in both directions.
//
// Only real predictions count: the attainable 1.0 of a no-verdict row
// (suspect, dispatch-bound, unmodelled) is a placeholder, and a miss must lie
// beyond the isolated noise band (1.047× against a predicted 1.023× is the
// prediction holding, docs/glossary.md, "Headroom class"). A null outcome (an isolated result
// inside the band) says nothing about the ceiling (docs/estimator.md), so it is
// never listed as the model over-predicting. Serving-config trials have no
// kernel prediction and are left out of the table.
#include "report/calibration.hpp"

#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "report/analysis.hpp"
#include "report/digest.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace rfdb::report::detail {

namespace {

std::optional<double> median(std::vector<double> v)
{
  if (v.empty()) {
    return std::nullopt;
  }
  // The middle order statistics by selection, not a sort (linear time: the
  // samples are every attempt of a class).
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  return n % 2 == 1 ? *mid : (*std::max_element(v.begin(), mid) + *mid) / 2.0;
}

// "1.452× (n 2)" / "- (n 0)", or the bare value with `unit` "".
std::string median_cell(const std::vector<double>& v, std::string_view unit)
{
  const auto m = median(v);
  return fmt::format("{}{} (n {})", m ? fixed(*m, 3) : "-", m ? unit : "", v.size());
}

std::string times(const std::optional<double>& v)
{
  return v ? fixed(*v, 3) + "\u00d7" : "-";
}

std::string class_table(const std::map<std::string, ClassSample>& by_class)
{
  std::vector<std::string> order(domain::k_seeded_op_classes.begin(), domain::k_seeded_op_classes.end());
  for (const auto& [op, c] : by_class) {
    if (std::find(order.begin(), order.end(), op) == order.end()) {
      order.push_back(op);
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& op : order) {
    if (const auto it = by_class.find(op); it != by_class.end()) {
      const ClassSample& c = it->second;
      rows.push_back({md_text(op), std::to_string(c.attempts), median_cell(c.predicted, "\u00d7"),
                      median_cell(c.measured, "\u00d7"), median_cell(c.ratio, "")});
    }
  }
  return table({"op class", "attempts", "median predicted attainable_speedup",
                "median measured isolated speedup", "median measured / predicted"},
               {"---", "---:", "---:", "---:", "---:"}, rows);
}

std::string transfer_table(const calibrate::PriorsResult& p)
{
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : p.e2e_transfer) {
    // Absent interval: one run. A capped ratio says so: its 1.0 is the cap, not a raw ceiling.
    const std::string interval =
        t.interval ? fmt::format("[{}, {}]", fixed(t.interval->lo, 4), fixed(t.interval->hi, 4)) : "one run";
    const std::string source =
        t.capped ? fmt::format("capped at 1.0 (m {}, fewer than {} runs)",
                               t.statistic ? fixed(*t.statistic, 4) : "-", domain::k_transfer_breadth_runs)
                 : std::string(calibrate::to_string(t.source));
    rows.push_back({md_text(t.op_class), md_text(t.regime), std::to_string(t.n), fixed(t.median_ratio, 4),
                    interval, std::to_string(t.sign_flips), source});
  }
  return table({"op class", "regime", "n", "median_ratio", "interval", "sign_flips", "source"},
               {"---", "---", "---:", "---:", "---", "---:", "---"}, rows);
}

std::string miss_line(const AttemptInfo& at, double ratio)
{
  std::string line =
      fmt::format("- {} ({} \u00b7 {} \u00b7 {}) in run {}: {} measured {} vs predicted {} (ratio {})",
                  md_code(at.short_name), md_text(at.op_class.empty() ? "unknown" : at.op_class),
                  md_text(domain::gfx_key(at.gfx)), md_text(domain::normalize_regime(at.regime)),
                  md_code(at.run_id), md_text(at.lever.empty() ? at.backend : at.lever),
                  times(at.isolated_speedup), times(at.prediction.attainable_speedup), fixed(ratio, 3));
  // An under-prediction of a multi-case measured roofline that one of its
  // cases allows: the diagnosis is the case mix, not the byte/FLOP counts.
  if (at.isolated_speedup && ratio > 1.0) {
    if (const auto* c = domain::case_mix_source(at.prediction.case_mix, *at.isolated_speedup)) {
      line += fmt::format(": case mix (the win came from {}, which allows {})", md_code(c->case_id),
                          times(c->attainable_speedup));
    }
  }
  return line;
}

Blocks misses(const AttemptDigest& d)
{
  Blocks out;
  const auto block = [&](const MissList& list, std::string_view title, std::string_view none) {
    const auto& v = list.kept;
    out.emplace_back(v.empty() ? none : title);
    if (!v.empty()) {
      std::vector<std::string> lines;
      for (const auto& m : v) {
        lines.push_back(miss_line(m.attempt, m.ratio));
      }
      if (list.total > v.size()) {
        lines.push_back(fmt::format("- {} more: `rfdb query playbook_misses`", list.total - v.size()));
      }
      out.push_back(util::join(lines, "\n"));
    }
  };
  const double band_pct = 100.0 * domain::k_iso_noise;
  block(d.under,
        fmt::format("Largest misses where the model under-predicted (an isolated win beyond the predicted "
                    "attainable_speedup \u00d7 {:g}):",
                    1.0 + domain::k_iso_noise),
        fmt::format("No isolated win beat its predicted attainable_speedup beyond the {:g} % noise band.",
                    band_pct));
  block(d.over,
        fmt::format("Largest misses where the model over-predicted (an isolated win short of the predicted "
                    "attainable_speedup by more than the {:g} % noise band):",
                    band_pct),
        fmt::format(
            "No isolated win fell short of its predicted attainable_speedup beyond the {:g} % noise band.",
            band_pct));
  return out;
}

} // namespace

Blocks calibration_section(const Analysis& a)
{
  if (a.attempts == 0 || !a.digest) {
    return {"No attempts yet: nothing to compare predictions with."};
  }
  const AttemptDigest& d = *a.digest;
  const std::size_t configs = d.config_trials;
  std::string intro = "Per op class: attempts, median predicted attainable_speedup (real verdicts only: "
                      "suspect and no-verdict rows carry a placeholder 1.0), median measured isolated "
                      "speedup, and the median of measured / predicted over attempts that have both; n "
                      "counts the attempts behind each median.";
  if (configs > 0) {
    intro += fmt::format(" {} left out: they have no kernel prediction.",
                         plural(configs, "serving-config trial is", "serving-config trials are"));
  }
  Blocks out{intro};
  if (a.attempts > configs) {
    out.push_back(class_table(d.by_class));
  }
  if (a.scoped.priors.e2e_transfer.empty()) {
    out.emplace_back("No e2e transfer yet: no kernel attempt with a measured e2e delta.");
  } else {
    out.emplace_back(
        "e2e transfer from `rfdb priors` (all GPUs in the window): the share of the Amdahl ceiling "
        "pct_gpu_time \u00d7 (1 \u2212 1/isolated) that reached end-to-end throughput; multiply a "
        "prediction's expected_e2e_gain_pct by median_ratio for a calibrated expectation.");
    out.push_back(transfer_table(a.scoped.priors));
  }
  for (auto& b : misses(d)) {
    out.push_back(std::move(b));
  }
  return out;
}

} // namespace rfdb::report::detail
