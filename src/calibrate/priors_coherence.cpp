// A key's value against its children's: the shares of the seed and of each
// set's quantile on their paths (calibrate/priors_coherence.hpp).
#include "calibrate/priors_coherence.hpp"

#include <cmath>

namespace rfdb::calibrate {

namespace {

double round4(double x)
{
  return std::round(x * 1e4) / 1e4;
}

} // namespace

SharedPath shared_path(std::string key, double target_eff, const std::vector<ShrinkStep>& steps, double k)
{
  SharedPath path;
  path.key = std::move(key);
  path.target_eff = target_eff;
  path.steps.resize(steps.size());
  double left = 1.0; // share of the value not yet given to a later step
  for (std::size_t i = steps.size(); i-- > 0;) {
    const ShrinkStep& st = steps[i];
    path.steps[i].step = st;
    path.steps[i].step.observations.clear();
    if (st.statistic && k + st.weight > 0.0) {
      path.steps[i].share = left * st.weight / (k + st.weight);
      left *= k / (k + st.weight);
    }
  }
  path.seed_share = left;
  return path;
}

Result<std::optional<ChildrenCoherence>> explain_children(std::span<const Observation> attempts,
                                                          const KeyExplanation& explanation)
{
  const PriorsKey& key = explanation.key;
  if (key.regime || explanation.chain.empty()) {
    return std::optional<ChildrenCoherence>{};
  }
  PriorsParams p = explanation.params;
  p.level = key.gfx ? PriorsLevel::op_class_gfx_regime : PriorsLevel::op_class_gfx;
  p.bootstrap_resamples = 0; // values only
  PriorsResult all;
  RFDB_TRY_ASSIGN(all, compute_priors(attempts, p));
  std::vector<PriorRow> children;
  for (const PriorRow& row : all.priors) {
    const bool child = row.op_class == key.op_class &&
                       (key.gfx ? row.gfx == key.gfx && row.regime.has_value() : row.gfx && !row.regime);
    if (child && row.n > 0) {
      children.push_back(row);
    }
  }
  if (children.size() < 2) {
    return std::optional<ChildrenCoherence>{};
  }
  const double value = round4(explanation.chain.back().target_eff);
  double lo = 1.0;
  double hi = 0.0;
  for (const PriorRow& c : children) {
    lo = std::min(lo, round4(c.target_eff));
    hi = std::max(hi, round4(c.target_eff));
  }
  if (value >= lo && value <= hi) {
    return std::optional<ChildrenCoherence>{};
  }
  const double k = explanation.params.prior_strength;
  ChildrenCoherence out;
  out.above = value > hi;
  out.seed = explanation.chain.front().seed;
  out.key = shared_path(row_key(explanation.chain.back()), explanation.chain.back().target_eff,
                        explanation.steps, k);
  for (const PriorRow& c : children) {
    KeyExplanation child;
    RFDB_TRY_ASSIGN(child, explain_priors(attempts, p, PriorsKey{c.op_class, c.gfx, c.regime}));
    out.children.push_back(shared_path(row_key(c), c.target_eff, child.steps, k));
  }
  return std::optional<ChildrenCoherence>{std::move(out)};
}

} // namespace rfdb::calibrate
