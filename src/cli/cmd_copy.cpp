// `rfdb copy`: options → store::transfer_store (refusals, the copy, its
// verification with `rfdb check` and the priors of both) → the summary (see
// cli/cmd_copy.hpp).
#include "cli/cmd_copy.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors_format.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "ingest/database_check.hpp"
#include "store/store_transfer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

namespace rfdb::cli {

namespace {

// A database opened read-only as `rfdb check` and `rfdb priors` open it.
Result<store::Database> open_named(const std::string& db, store::OlderSchema older)
{
  auto opened = store::Database::open_read_only(db, older);
  if (!opened) {
    return fail(std::move(opened).error().with_context(store::display_name(db)));
  }
  return opened;
}

// The copy's verification by the layers above the store: `rfdb check`
// (ingest::check_database) and `rfdb priors --format json` (the default
// parameters, every run).
store::CopyVerifier copy_verifier()
{
  store::CopyVerifier verify;
  verify.check = [](const std::string& db) -> Result<bool> {
    auto opened = open_named(db, store::OlderSchema::accept);
    if (!opened) {
      return fail(std::move(opened).error());
    }
    auto checked = ingest::check_database(*opened);
    if (!checked) {
      return fail(checked.error());
    }
    return checked->ok();
  };
  verify.priors_json = [](const std::string& db) -> Result<std::string> {
    auto opened = open_named(db, store::OlderSchema::refuse);
    if (!opened) {
      return fail(std::move(opened).error());
    }
    auto priors = calibrate::compute_priors_from_store(*opened, {}, calibrate::PriorsParams{});
    if (!priors) {
      return fail(priors.error());
    }
    return calibrate::render_priors(*priors, calibrate::PriorsFormat::json);
  };
  return verify;
}

} // namespace

Result<int> run_copy(const CopyOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto copied = store::transfer_store(
      opts.from, opts.to, copy_verifier(),
      [&ctx](store::TransferStep step, const store::TransferOutcome& so_far) {
        if (step == store::TransferStep::resuming) {
          fmt::print(ctx.err,
                     "rfdb: {} holds a copy of {} committed but not verified (the copy was interrupted): "
                     "verifying it\n",
                     so_far.to, so_far.source_name);
        } else if (ctx.verbose) {
          fmt::print(ctx.err, "rfdb: copying {} (read-only) into {}\n", so_far.from, so_far.to);
        }
      });
  if (!copied) {
    return fail(std::move(copied).error());
  }
  const store::TransferOutcome& out = *copied;
  const bool ok = out.ok();
  if (domain::is(*format, domain::OutputFormat::json)) {
    auto tables = nlohmann::ordered_json::array();
    for (const auto& t : out.report.tables) {
      tables.push_back({{"table", t.table}, {"source_rows", t.source_rows}, {"dest_rows", t.dest_rows}});
    }
    nlohmann::ordered_json j{{"ok", ok},
                             {"from", out.from},
                             {"to", out.to},
                             {"resumed", out.resumed},
                             {"tables", tables},
                             {"counts_match", out.report.counts_match()},
                             {"check_ok", out.check_ok},
                             {"priors_identical", out.priors_identical}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(ctx.out, "{} {} into {}\n", out.resumed ? "verified the interrupted copy of" : "copied",
               out.from, out.to);
    std::size_t width = 5;
    for (const auto& t : out.report.tables) {
      width = std::max(width, t.table.size());
    }
    fmt::print(ctx.out, "{:<{}}  {:>10}  {:>10}\n", "table", width, "source", "copy");
    for (const auto& t : out.report.tables) {
      fmt::print(ctx.out, "{:<{}}  {:>10}  {:>10}{}\n", t.table, width, t.source_rows, t.dest_rows,
                 t.source_rows == t.dest_rows ? "" : "  DIFFERS");
    }
    fmt::print(ctx.out, "check            {}\n",
               out.check_ok ? "ok" : "PROBLEMS FOUND (run `rfdb check` on the copy)");
    fmt::print(ctx.out, "priors (json)    {}\n", out.priors_identical ? "identical" : "DIFFER");
    fmt::print(ctx.out, "{}\n", ok ? "ok" : "COPY NOT VERIFIED");
  }
  return ok ? 0 : 1;
}

void add_copy_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<CopyOptions>();
  auto* cmd = app.add_subcommand(
      "copy", "Copy a whole store into a new database (SQLite file or PostgreSQL), then verify the copy");
  cmd->add_option("--from", opts->from, "The store to copy: a path or a postgresql:// URL (read-only)")
      ->type_name("DB")
      ->required();
  cmd->add_option("--to", opts->to, "The new store: created when missing; must hold no data")
      ->type_name("DB")
      ->required();
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer(
      "Every table is copied (parents first, ids kept) in one transaction on the destination;\n"
      "a destination that already holds runs or knowledge is refused untouched (no merge).\n"
      "Then the copy is verified: `rfdb check` on it, the row count of every table and the\n"
      "`priors --format json` of both must agree. --db is not used. A copy killed before its\n"
      "verification is verified by the same command run again (the destination records\n"
      "'copied, unverified'); a verified copy, or one that failed verification, is refused.\n"
      "Exit 0 when copied and verified; 1 when refused, failed (nothing written) or not\n"
      "verified; 2 on usage errors; 3 when a database is not rfdb's or is newer than this rfdb.\n\n"
      "Examples:\n"
      "  rfdb copy --from team.sqlite --to postgresql://rfdb@db.example.com/rfdb   # outgrew the file\n"
      "  rfdb copy --from postgresql://reader@db.example.com/rfdb --to laptop.sqlite\n"
      "  rfdb copy --from a.sqlite --to b.sqlite --format json | jq .ok");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_copy(*opts, ctx); }; });
}

} // namespace rfdb::cli
