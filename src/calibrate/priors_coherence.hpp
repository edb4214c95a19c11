// Why a key's target_eff can lie outside the range of its children's
// (issue 28): `rfdb priors --explain gemm` when gemm is above both
// gemm:gfx942 and gemm:gfx950. Each value is a weighted mix of the seed and
// the weighted quantiles q of the sets on its path from the seed
// (calibrate/priors.hpp): a step shrinking p by (W, q) gives q the share
// W / (k + W) of what is left and keeps k / (k + W) for everything before it.
// The class pools all its observations into one q and keeps the seed's share
// k / (k + W); each child shrinks the seed by its siblings' evidence first,
// then by its own, so it keeps less of the seed and weighs its own q most.
// A pooled quantile lies between the children's own q, but the mixes differ,
// so the class need not lie between its children.
#pragma once

#include "calibrate/priors.hpp"
#include "util/result.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rfdb::calibrate {

// One step of a path with the share of the final value its q carries.
struct SharedStep {
  ShrinkStep step;
  double share = 0.0; // fraction of the final value that is this step's q (0 for an empty set)
};

// A value's path from the seed, each q with its share.
struct SharedPath {
  std::string key;               // "gemm:gfx942"
  double target_eff = 0.0;       // fraction
  double seed_share = 0.0;       // fraction of the value that is the seed
  std::vector<SharedStep> steps; // as explain_priors gives them, text of the observations dropped
};

// A key whose value lies outside its children's range, and the paths behind both.
struct ChildrenCoherence {
  SharedPath key;                   // the key's own path
  bool above = true;                // above the highest child (else below the lowest)
  double seed = 0.0;                // the class seed
  std::vector<SharedPath> children; // the children with observations of their own, in row order
};

// The path's shares for prior strength k: walking back from the last step,
// each non-empty step takes W / (k + W) of what is left; the seed keeps the rest.
SharedPath shared_path(std::string key, double target_eff, const std::vector<ShrinkStep>& steps, double k);

// For an explained class (or class:gfx) key: its children at the next level
// (class:gfx, or class:gfx:regime) that have observations of their own, and
// their paths, when the key's value (rounded to 4 decimals) lies above the
// highest or below the lowest of at least two such children; none otherwise
// (a regime key, fewer than two children with evidence, or a value inside
// their range). `explanation` is explain_priors(attempts, params, key).
// Errors: as compute_priors.
Result<std::optional<ChildrenCoherence>> explain_children(std::span<const Observation> attempts,
                                                          const KeyExplanation& explanation);

} // namespace rfdb::calibrate
