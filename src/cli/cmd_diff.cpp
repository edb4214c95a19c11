// `rfdb diff`: resolve both runs → report::diff_runs → render (see cli/cmd_diff.hpp).
#include "cli/cmd_diff.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "report/run_diff.hpp"
#include "report/run_diff_format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>

namespace rfdb::cli {

Result<int> run_diff(const DiffOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto opened = open_run_for_read(ctx, opts.run_a);
  if (!opened) {
    return fail(opened.error());
  }
  std::string run_b;
  RFDB_TRY_ASSIGN(run_b, resolve_run(opened->db, opts.run_b));
  auto diff = report::diff_runs(opened->db, opened->run_id, run_b);
  if (!diff) {
    return fail(diff.error());
  }
  const auto rows = opts.all ? report::DiffRows::all : report::DiffRows::changed;
  fmt::print(ctx.out, "{}",
             domain::is(*format, domain::OutputFormat::json) ? report::render_run_diff_json(*diff, rows)
                                                             : report::render_run_diff_table(*diff, rows));
  return 0;
}

void add_diff_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff", "Compare two runs: identity, stack, workload, heads, attempts, "
                                         "throughput, validation");
  cmd->add_option("RUN_A", opts->run_a, "The first run: its id (eval dir basename) or any unique prefix")
      ->required();
  cmd->add_option("RUN_B", opts->run_b, "The second run, the same way")->required();
  cmd->add_flag("--all", opts->all, "Also list what is equal, not only the differences");
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer(R"(Compares (docs/README.md, "Comparing two runs"; JSON: docs/json.md):
  identity    run_id, run_date, model, gfx, device, backend and version, retracted
  stack       each package: same, changed, only in a, only in b (rocm on its release)
  workload    isl, osl, conc, tp, precision
  heads       kernels with pct_gpu_time >= 5 % in the latest round, matched by kernel name
              (case, '_', '-', '.', spaces ignored): pct_gpu_time and the verdict (roofline_pct,
              target_eff, attainable_speedup, expected gain, headroom_class, bound_type;
              measured baseline when usable)
  attempts    matched by kernel and lever key (the playbook's): gate, verdict, deployed,
              isolated speedup, e2e delta, parity, reject reason
  throughput  baseline and final tok/s, speedup, measured spread and e2e band
  validation  class, status, output parity
Numbers are compared at the precision they are shown with. The exit code is 0 whether or not
the runs differ (1 is an error); `.differences` in the JSON counts them.

Examples:
  rfdb diff e2e_Qwen3.5-122B e2e_Qwen3.5-27B     # unique prefixes are enough
  rfdb diff RUN_A RUN_B --all                     # equal rows too
  rfdb diff RUN_A RUN_B --format json | jq '.stack[] | select(.state == "changed")'
  rfdb diff RUN_A RUN_B | jq '.differences'       # JSON when piped)");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_diff(*opts, ctx); }; });
}

} // namespace rfdb::cli
