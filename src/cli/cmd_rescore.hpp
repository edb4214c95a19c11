// `rfdb rescore`: every stored profile-round verdict re-banded under the stored, today's and
// leave-the-run-out target_eff priors, and the routing decisions that change (docs/rescore.md;
// the rules are calibrate/rescore.hpp's).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct RescoreOptions {
  std::string as_of;        // YYYY-MM-DD: the date of today's priors (b); "" = the newest run date
  std::string run;          // a run id or unique prefix; "" = every non-retracted run
  std::string by = "class"; // the priors level: class | class,gfx | class,gfx,regime
  std::string format;       // table | json ("" = the global --format, else by terminal)
  bool all = false;         // list every rescored verdict, not only the changed ones
};
void add_rescore_command(CLI::App& app, Context& ctx, Runner& runner);
// Exit 0 with the changed decisions (none is an answer); errors: not_found (exit 1) for an
// unknown run, usage (exit 2) for an ambiguous prefix or a bad --by.
Result<int> run_rescore(const RescoreOptions& opts, Context& ctx);

} // namespace rfdb::cli
