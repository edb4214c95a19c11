// `rfdb restore` (see cli/cmd_restore.hpp): options → store::restore_run → one line.
#include "cli/cmd_restore.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "store/runs.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>

namespace rfdb::cli {

Result<int> run_restore(const RestoreOptions& opts, Context& ctx)
{
  auto opened = open_run_for_write(ctx, opts.run_id);
  if (!opened) {
    return fail(opened.error());
  }
  auto r = store::restore_run(opened->db, opened->run_id, util::format_iso_timestamp(ctx.now()));
  if (!r) {
    return fail(r.error());
  }
  fmt::print(ctx.out, "restored {}\n", opened->run_id);
  return 0;
}

void add_restore_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<RestoreOptions>();
  auto* cmd = app.add_subcommand("restore", "Undo `rfdb retract` for a run");
  cmd->add_option("RUN", opts->run_id, "Run id or any unique prefix of it")->required();
  cmd->footer("Example:\n  rfdb restore e2e_x_20260101_000000_1_a");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_restore(*opts, ctx); }; });
}

} // namespace rfdb::cli
