// `rfdb priors` — calibrated per-op-class target_eff priors (docs/estimator.md).
#pragma once

#include "cli/context.hpp"
#include "domain/roofline.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rfdb::cli {

struct PriorsOptions {
  std::string by = "class"; // class | class,gfx | class,gfx,regime
  std::string format;       // json | table | csv | md | python (default: table on a terminal, else json)
  std::string as_of;        // YYYY-MM-DD; default: newest run date
  std::string since;        // YYYY-MM-DD
  std::optional<double> half_life_days;
  double prior_strength = domain::k_prior_strength;
  double transfer_strength = domain::k_transfer_prior_strength; // the e2e transfer's shrink toward 1
  std::string confidence_weights;                               // "high=1,medium=0.6,low=0.25"
  std::string explain;                                          // CLASS[:GFX[:REGIME]]
  bool include_parity_fail = false;
  bool include_biased_profiler = false; // --include-biased-profiler: count flagged observations
  bool since_shift = false;             // --since-shift: only the evidence after each key's newest shift
  std::string compare_as_of;            // YYYY-MM-DD: compare with the priors as of this date
  std::string compare_since;            // YYYY-MM-DD: compare with the priors before this date's runs
  std::vector<std::string> stack;       // --stack SPEC: only runs whose stack satisfies every spec
};
void add_priors_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_priors(const PriorsOptions& opts, Context& ctx);

} // namespace rfdb::cli
