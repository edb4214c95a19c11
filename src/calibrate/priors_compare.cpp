// `rfdb priors --compare-as-of/--compare-since`: two priors tables side by side, and their renderers.
#include "calibrate/priors_compare.hpp"

#include "calibrate/priors_format.hpp"
#include "util/table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace rfdb::calibrate {

namespace {

using ordered_json = nlohmann::ordered_json;

// The JSON contract rounds priors to 4 decimals; the change follows.
double round4(double x)
{
  const double r = std::round(x * 1e4) / 1e4;
  return r == 0.0 ? 0.0 : r; // no "-0.0"
}

ordered_json side_json(const std::optional<PriorRow>& row)
{
  if (!row) {
    return nullptr;
  }
  ordered_json interval = nullptr;
  if (row->interval) {
    interval = ordered_json::array({round4(row->interval->lo), round4(row->interval->hi)});
  }
  return ordered_json{
      {"target_eff", round4(row->target_eff)},
      {"parent", round4(row->parent)},
      {"n", row->n},
      {"runs", row->runs},
      {"weight", std::round(row->weight * 1e3) / 1e3},
      {"statistic", row->statistic ? ordered_json(round4(*row->statistic)) : ordered_json(nullptr)},
      {"interval", interval},
      {"source", calibrate::to_string(row->source)}};
}

std::string value(const std::optional<PriorRow>& row)
{
  return row ? fmt::format("{:.4f}", row->target_eff) : "-";
}
// "[lo, hi]", else why the side has none ("one run"), else "-".
std::string interval(const std::optional<PriorRow>& row)
{
  if (!row) {
    return "-";
  }
  if (row->interval) {
    return fmt::format("[{:.4f}, {:.4f}]", row->interval->lo, row->interval->hi);
  }
  return row->interval_reason.empty() ? "-" : row->interval_reason;
}

// Equal to 6 decimals: W and q computed from the same observations are equal
// bit for bit; the tolerance only keeps a printed-equal pair equal.
bool same(double a, double b)
{
  return std::abs(a - b) < 5e-7;
}

// Whether a key's own observations differ between the two sides.
bool own_evidence_changed(const PriorRow& before, const PriorRow& after)
{
  if (before.n != after.n || before.runs != after.runs || !same(before.weight, after.weight) ||
      before.statistic.has_value() != after.statistic.has_value()) {
    return true;
  }
  return before.statistic && !same(*before.statistic, *after.statistic);
}

std::string cause_text(const std::optional<ChangeCause>& cause)
{
  if (!cause || *cause == ChangeCause::none) {
    return "-";
  }
  return *cause == ChangeCause::own ? "own evidence" : "moved with its parent";
}

} // namespace

const char* to_string(ChangeCause cause)
{
  switch (cause) {
  case ChangeCause::none:
    return "none";
  case ChangeCause::own:
    return "own";
  case ChangeCause::parent:
    return "parent";
  }
  return "none";
}

std::vector<ComparedPrior> compare_priors(const PriorsResult& before, const PriorsResult& after)
{
  std::vector<ComparedPrior> out;
  auto find = [&out](const std::string& key) -> ComparedPrior* {
    for (auto& c : out) {
      if (c.key == key) {
        return &c;
      }
    }
    return nullptr;
  };
  for (const auto& row : after.priors) {
    out.push_back({row_key(row), row.op_class, row.gfx, row.regime, std::nullopt, row, {}, {}, {}});
  }
  for (const auto& row : before.priors) {
    const std::string key = row_key(row);
    if (ComparedPrior* c = find(key)) {
      c->before = row;
    } else {
      out.push_back({key, row.op_class, row.gfx, row.regime, row, std::nullopt, {}, {}, {}});
    }
  }
  for (auto& c : out) {
    if (c.before && c.after) {
      c.change = round4(c.after->target_eff - c.before->target_eff);
      c.cause = own_evidence_changed(*c.before, *c.after) ? ChangeCause::own
                : *c.change != 0.0                        ? ChangeCause::parent
                                                          : ChangeCause::none;
      if (c.before->interval && c.after->interval && *c.cause != ChangeCause::parent) {
        const auto& a = *c.before->interval;
        const auto& b = *c.after->interval;
        c.intervals_overlap = !(a.hi < b.lo || b.hi < a.lo);
      }
    }
  }
  return out;
}

std::string render_compare_table(const PriorsResult& before, const PriorsResult& after,
                                 const std::vector<ComparedPrior>& rows)
{
  std::vector<std::vector<std::string>> cells;
  for (const auto& c : rows) {
    cells.push_back(
        {c.key, value(c.before), value(c.after), c.change ? fmt::format("{:+.4f}", *c.change) : "-",
         fmt::format("{}→{}", c.before ? std::to_string(c.before->n) : "-",
                     c.after ? std::to_string(c.after->n) : "-"),
         interval(c.before), interval(c.after),
         !c.intervals_overlap ? "-" : (*c.intervals_overlap ? "yes" : "NO"), cause_text(c.cause)});
  }
  using util::Align;
  std::string out = fmt::format("target_eff before (as of {}) and after (as of {}); overlap: whether the two "
                                "90 % intervals overlap (NO: the newer runs moved the value beyond its "
                                "uncertainty); cause: the key's own evidence changed, or it moved with its "
                                "parent (its own observations are unchanged; no overlap test)\n\n",
                                before.as_of.value_or("-"), after.as_of.value_or("-"));
  out += util::render_table({{"key"},
                             {"before", Align::right},
                             {"after", Align::right},
                             {"change", Align::right},
                             {"n", Align::right},
                             {"interval before"},
                             {"interval after"},
                             {"overlap"},
                             {"cause"}},
                            cells);
  return out;
}

std::string render_compare_json(const PriorsResult& before, const PriorsResult& after,
                                const std::vector<ComparedPrior>& rows)
{
  auto priors = ordered_json::array();
  for (const auto& c : rows) {
    priors.push_back({{"op_class", c.op_class},
                      {"gfx", c.gfx ? ordered_json(*c.gfx) : ordered_json(nullptr)},
                      {"regime", c.regime ? ordered_json(*c.regime) : ordered_json(nullptr)},
                      {"before", side_json(c.before)},
                      {"after", side_json(c.after)},
                      {"change", c.change ? ordered_json(*c.change) : ordered_json(nullptr)},
                      {"change_cause", c.cause ? ordered_json(to_string(*c.cause)) : ordered_json(nullptr)},
                      {"intervals_overlap",
                       c.intervals_overlap ? ordered_json(*c.intervals_overlap) : ordered_json(nullptr)}});
  }
  // The parameters block of the priors contract, shared by both sides.
  const auto params = ordered_json::parse(calibrate::render_priors_json(after))["parameters"];
  const ordered_json doc{
      {"before", {{"as_of", before.as_of ? ordered_json(*before.as_of) : ordered_json(nullptr)}}},
      {"after", {{"as_of", after.as_of ? ordered_json(*after.as_of) : ordered_json(nullptr)}}},
      {"parameters", params},
      {"priors", priors}};
  return doc.dump(2) + "\n";
}

} // namespace rfdb::calibrate
