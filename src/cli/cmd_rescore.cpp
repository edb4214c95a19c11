// `rfdb rescore`: options → calibrate::rescore_from_store → render (see cli/cmd_rescore.hpp).
#include "cli/cmd_rescore.hpp"

#include "calibrate/rescore.hpp"
#include "calibrate/rescore_format.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/roofline.hpp"
#include "domain/vocab.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>

namespace rfdb::cli {

Result<int> run_rescore(const RescoreOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  calibrate::RescoreParams params;
  RFDB_TRY_ASSIGN(params.priors.level, calibrate::parse_priors_level(opts.by));
  params.priors.as_of = opts.as_of;
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  if (!opts.run.empty()) {
    RFDB_TRY_ASSIGN(params.run_id, resolve_run(*db, opts.run));
  }
  auto result = calibrate::rescore_from_store(*db, params);
  if (!result) {
    return fail(result.error());
  }
  const auto rows = opts.all ? calibrate::RescoreRows::all : calibrate::RescoreRows::changed;
  fmt::print(ctx.out, "{}",
             domain::is(*format, domain::OutputFormat::json)
                 ? calibrate::render_rescore_json(*result, rows)
                 : calibrate::render_rescore_table(*result, rows));
  return 0;
}

void add_rescore_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RescoreOptions>();
  auto* cmd = app.add_subcommand("rescore", "Re-band stored verdicts with today's and leave-the-run-out "
                                            "target_eff priors: the routing decisions that change");
  cmd->add_option("--as-of", opts->as_of, "Today's priors (b) as of DATE (default: newest run date)")
      ->check(iso_date_validator());
  cmd->add_option("--run", opts->run, "Only this run (an id or a unique prefix; a retracted run too)")
      ->type_name("RUN")
      ->check(non_empty("a run id or prefix"));
  cmd->add_option("--by", opts->by,
                  "The priors level a verdict is scored at: class | class,gfx | class,gfx,regime (default "
                  "class; a key without a row falls back to the level above)")
      ->type_name("LEVEL");
  cmd->add_flag("--all", opts->all, "List every rescored verdict, not only those whose decisions change");
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer(fmt::format(
      R"(For each current profile-round verdict of each non-retracted run (or of --run), rfdb bands it
with three target_eff values (docs/rescore.md):
  a  the target_eff the run used, as its verdict stored it
  b  today's calibrated priors (rfdb priors --as-of DATE --by LEVEL)
  c  the priors as of the day before the run's date: leave-the-run-out, what rfdb would
     have told that run
and recomputes headroom_class (saturated at roofline_pct >= {sat:g} x target_eff, moderate at
>= {mod:g} x), attainable_speedup (x, max(1, target_eff / roofline_pct)) and
expected_e2e_gain_pct (percent, pct_gpu_time x (1 - 1/attainable)). Suspect, dispatch-bound and
unbanded verdicts stay without a band. It lists the decisions that change under b or c: a band
(into or out of saturated: the reroute-to-byte-reduction rule), the rank of a head
(pct_gpu_time >= {head:g}) by expected gain in its round, and the skip gate roofline_pct >=
target_eff (skip or try).

Examples:
  rfdb rescore                                   # every run, the changed decisions
  rfdb rescore --run e2e_gemma --all             # one run, every verdict
  rfdb rescore --by class,gfx --as-of 2026-08-01
  rfdb rescore | jq '.summary'                   # JSON when piped)",
      fmt::arg("sat", domain::k_saturated_edge), fmt::arg("mod", domain::k_moderate_edge),
      fmt::arg("head", domain::k_head_min_pct)));
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_rescore(*opts, ctx); }; });
}

} // namespace rfdb::cli
