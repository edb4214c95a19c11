// `rfdb priors --compare-as-of DATE` / `--compare-since DATE`: each key's
// target_eff at two dates side by side, with the change, what caused it (the
// key's own evidence, or only its parent's) and whether the two bootstrap
// intervals overlap. The values come from calibrate::compute_priors
// run twice; this file only pairs the rows and renders them (a table, or
// JSON with both values; docs/json.md).
#pragma once

#include "calibrate/priors.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rfdb::calibrate {

// What moved a key's value between the two dates.
enum class ChangeCause {
  none,   // its own evidence and its value are unchanged
  own,    // its own observations changed (n, runs, weight W or statistic q)
  parent, // its own observations did not change, its value moved with its parent's
};
const char* to_string(ChangeCause cause); // "none" | "own" | "parent"

// One key at both dates; a side is absent when the key did not exist then.
struct ComparedPrior {
  std::string key; // "moe", "moe:gfx950", … (row_key)
  std::string op_class;
  std::optional<std::string> gfx, regime;
  std::optional<PriorRow> before, after;
  std::optional<double> change;          // after − before target_eff
  std::optional<ChangeCause> cause;      // none when either side is absent
  std::optional<bool> intervals_overlap; // none when either side has no interval, or the cause is parent
};

// Pair `before` and `after` by key, in `after`'s order (keys only `before`
// has follow, in its order). A key whose own observations are the same at
// both dates (same n, runs, W and q) but whose value moved has cause parent
// and no intervals_overlap: its intervals hold two different parent values
// fixed, so their overlap says nothing about its evidence.
std::vector<ComparedPrior> compare_priors(const PriorsResult& before, const PriorsResult& after);

// The aligned table a terminal shows, with a header naming both dates.
std::string render_compare_table(const PriorsResult& before, const PriorsResult& after,
                                 const std::vector<ComparedPrior>& rows);
// {"before": {as_of}, "after": {as_of}, "parameters", "priors": [{op_class, gfx,
// regime, before, after, change, change_cause, intervals_overlap}]}, indented
// by 2; each side {target_eff, parent, n, runs, weight, statistic, interval,
// source} or null (docs/json.md).
std::string render_compare_json(const PriorsResult& before, const PriorsResult& after,
                                const std::vector<ComparedPrior>& rows);

} // namespace rfdb::calibrate
