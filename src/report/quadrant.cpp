// The quadrant chart of the newest run's heads and the route of a head
// verdict (declared in report/playbook.hpp).
#include "report/quadrant.hpp"

#include "domain/roofline.hpp"
#include "domain/vocab.hpp"
#include "report/analysis.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace rfdb::report {

namespace {

// Mermaid point/title text: [A-Za-z0-9_.-] and spaces survive its lexer;
// a leading keyword (title, x-axis, quadrant-1, …) would start a statement.
std::string mermaid_text(std::string_view raw)
{
  std::string out;
  for (const char c : raw) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-' || c == ' ';
    out += ok ? c : '_';
  }
  const std::string lower = util::lower_ascii(out);
  bool keyword = out.empty() || !((out[0] >= 'a' && out[0] <= 'z') || (out[0] >= 'A' && out[0] <= 'Z') ||
                                  (out[0] >= '0' && out[0] <= '9'));
  for (std::string_view k : {"title", "acc", "x-axis", "y-axis", "quadrant", "classdef", "section"}) {
    keyword = keyword || lower.rfind(k, 0) == 0;
  }
  return keyword ? "kernel " + out : out;
}

// Mermaid accepts coordinates "1" or "0.ddd" only.
std::string coordinate(double v)
{
  const std::string s = fixed(std::clamp(v, 0.0, 1.0), 3);
  return s == "1.000" ? "1" : s;
}

// quadrantChart always splits its axes at 0.5, so each axis is mapped
// piecewise linearly to put the routing threshold there: x = roofline_pct /
// target_eff with the saturated band edge (0.9) at 0.5 and 1.0 at the right
// edge; y = pct_gpu_time with the head threshold (5 %) at 0.5 and 50 % (or
// more) at the top.
constexpr double k_top_pct = 50.0;

double split_axis(double v, double threshold, double top)
{
  if (v <= threshold) {
    return 0.5 * std::max(v, 0.0) / threshold;
  }
  return 0.5 + 0.5 * std::min(1.0, (v - threshold) / (top - threshold));
}

} // namespace

std::string head_route(const HeadVerdict& h)
{
  if (h.pct_gpu_time < domain::k_head_min_pct) {
    return "low priority";
  }
  if (domain::is(h.headroom_class, domain::HeadroomClass::saturated)) {
    return h.disputed ? std::string(k_disputed_route) : "reduce bytes";
  }
  if (domain::is(h.headroom_class, domain::HeadroomClass::moderate) ||
      domain::is(h.headroom_class, domain::HeadroomClass::underperforming)) {
    return "tune";
  }
  return "no verdict";
}

std::string render_quadrant_chart(const Analysis& a)
{
  std::vector<std::string> points;
  std::set<std::string> names;
  for (const auto& h : a.newest_heads) {
    // A point needs a verdict: a no-verdict head (suspect, dispatch-bound,
    // unmodelled) would otherwise land in a quadrant its table row denies.
    if (head_route(h) == "no verdict" || !h.roofline_pct || !h.target_eff || *h.target_eff <= 0.0 ||
        points.size() >= 12) {
      continue;
    }
    const std::string label = mermaid_text(h.short_name) + (h.disputed ? " disputed" : "");
    std::string name = label;
    for (int k = 2; names.count(name) > 0; ++k) {
      name = fmt::format("{} {}", label, k);
    }
    names.insert(name);
    const double x = split_axis(*h.roofline_pct / *h.target_eff, domain::k_saturated_edge, 1.0);
    const double y = split_axis(h.pct_gpu_time, domain::k_head_min_pct, k_top_pct);
    points.push_back(fmt::format("  {}: [{}, {}]", name, coordinate(x), coordinate(y)));
  }
  if (points.empty()) {
    return "";
  }
  return fmt::format("```mermaid\nquadrantChart\n  title Head kernels of run {}\n"
                     "  x-axis headroom left --> saturated\n"
                     "  y-axis minor kernel --> head kernel\n"
                     "  quadrant-1 reduce bytes\n  quadrant-2 tune\n"
                     "  quadrant-3 low priority\n  quadrant-4 low priority\n{}\n```\n",
                     mermaid_text(a.newest_run_id), fmt::join(points, "\n"));
}

} // namespace rfdb::report
