// `rfdb retract` (see cli/cmd_retract.hpp): options → store::retract_run → one line.
#include "cli/cmd_retract.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "store/runs.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>

namespace rfdb::cli {

Result<int> run_retract(const RetractOptions& opts, Context& ctx)
{
  if (opts.reason.find_first_not_of(" \t\n") == std::string::npos) {
    return fail(make_error(ErrorCode::usage, "--reason must say why the run is retracted"));
  }
  auto opened = open_run_for_write(ctx, opts.run_id);
  if (!opened) {
    return fail(opened.error());
  }
  auto r = store::retract_run(opened->db, opened->run_id, opts.reason, util::format_iso_timestamp(ctx.now()));
  if (!r) {
    return fail(r.error());
  }
  fmt::print(ctx.out, "retracted {}: {}\n", util::escape_for_display(opened->run_id),
             util::escape_for_display(opts.reason));
  return 0;
}

void add_retract_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RetractOptions>();
  auto* cmd =
      app.add_subcommand("retract", "Exclude a run from priors and the playbook (kept; undo with restore)");
  cmd->add_option("RUN", opts->run_id, "Run id or any unique prefix of it")->required();
  cmd->add_option("--reason", opts->reason, "Why the run's evidence should not be used")->required();
  cmd->footer("Retracting again replaces the reason; `rfdb show RUN` lists every reason given.\n\n"
              "Example:\n  rfdb retract e2e_x_20260101_000000_1_a --reason \"box was not quiet\"");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_retract(*opts, ctx); }; });
}

} // namespace rfdb::cli
