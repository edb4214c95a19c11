// `rfdb copy`: open the source read-only, copy into an empty destination, then verify (see cli/cmd_copy.hpp).
#include "cli/cmd_copy.hpp"

#include "cli/cmd_check.hpp"
#include "cli/cmd_priors.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "store/store_transfer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>

namespace rfdb::cli {

namespace {

namespace fs = std::filesystem;

bool is_url(const std::string& db)
{
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

// A URL with its password (user:PASSWORD@) masked, for printing.
std::string shown(const std::string& db)
{
  if (!is_url(db)) {
    return db;
  }
  const auto scheme = db.find("://") + 3;
  const auto at = db.find('@', scheme);
  const auto colon = db.find(':', scheme);
  if (at == std::string::npos || colon == std::string::npos || colon > at) {
    return db;
  }
  return db.substr(0, colon + 1) + "***" + db.substr(at);
}

// A command's output on `db` as a string (a sub-context: same clock and
// quietness, output captured), with its exit code.
struct Captured {
  int code = 1;
  std::string out;
  std::string err;
};
template <typename Run> Result<Captured> capture(const Context& ctx, const std::string& db, Run run)
{
  std::ostringstream out;
  std::ostringstream err;
  Context sub{db, out, err, ctx.now, false};
  sub.quiet = true;
  sub.format = "json";
  auto code = run(sub);
  if (!code) {
    return fail(std::move(code).error());
  }
  return Captured{*code, out.str(), err.str()};
}

// The hint of a destination that cannot be opened or created.
constexpr const char* k_to_hint =
    "--to names a new SQLite file in an existing directory, or an empty PostgreSQL database";

// An existing SQLite destination must hold no data: looked at read-only, so a
// refused file stays byte for byte as it was. (A PostgreSQL destination is
// checked inside the copy's transaction only; that check covers both.)
Result<void> refuse_non_empty_file(const std::string& to)
{
  std::error_code ec;
  if (is_url(to) || to == ":memory:" || !fs::exists(to, ec)) {
    return {};
  }
  auto probe = store::Database::open_read_only(to);
  if (!probe) {
    if (probe.error().code == ErrorCode::not_found) {
      return {}; // an empty file: a new database
    }
    Error e = std::move(probe).error().with_context(to);
    if (e.code == ErrorCode::io) {
      e = std::move(e).with_hint(k_to_hint);
    }
    return fail(std::move(e));
  }
  std::vector<store::TableCount> counts;
  RFDB_TRY_ASSIGN(counts, store::table_counts(*probe));
  std::string held;
  for (const auto& c : counts) {
    if (c.source_rows > 0) {
      held += fmt::format("{}{}: {}", held.empty() ? "" : ", ", c.table, c.source_rows);
    }
  }
  if (!held.empty()) {
    return fail(make_error(ErrorCode::invalid_input, fmt::format("the destination is not empty ({})", held))
                    .with_context(to)
                    .with_hint("copy into a new database: rfdb copy never merges two stores"));
  }
  return {};
}

// The copy state recorded in an existing destination (see store::copy_store);
// empty when there is none or the destination cannot be read (the copy
// itself then reports why).
store::CopyState recorded_copy_state(const std::string& to)
{
  std::error_code ec;
  if (to == ":memory:" || (!is_url(to) && !fs::exists(to, ec))) {
    return {};
  }
  auto db = is_url(to) ? store::Database::open(to) : store::Database::open_read_only(to);
  if (!db) {
    return {};
  }
  auto state = store::read_copy_state(*db);
  return state ? *state : store::CopyState{};
}

} // namespace

Result<int> run_copy(const CopyOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  std::error_code ec;
  if (opts.from == opts.to ||
      (!is_url(opts.from) && fs::exists(opts.to, ec) && fs::equivalent(opts.from, opts.to, ec))) {
    return fail(make_error(ErrorCode::usage, "--from and --to name the same database")
                    .with_hint("the destination must be a new, empty database"));
  }
  auto src = store::Database::open_read_only(opts.from);
  if (!src) {
    Error e = std::move(src).error().with_context(shown(opts.from));
    if (e.code == ErrorCode::not_found || e.code == ErrorCode::io) {
      e = std::move(e).with_hint(
          "--from names an existing rfdb database: a SQLite file or a postgresql:// URL");
    }
    return fail(std::move(e));
  }
  // A destination a copy was committed into: a copy killed before its
  // verification is verified now; any other recorded state is refused.
  const store::CopyState recorded = recorded_copy_state(opts.to);
  const std::string from_name = store::display_name(src->path());
  const bool resume = recorded.state == store::k_copy_unverified && recorded.from == from_name;
  if (recorded.state == store::k_copy_verified) {
    return fail(make_error(ErrorCode::invalid_input,
                           fmt::format("the destination is a verified copy of {} already", recorded.from))
                    .with_context(shown(opts.to))
                    .with_hint("it is a verified copy already: use it as it is (remove it first to copy "
                               "into it again)"));
  }
  if (recorded.state == store::k_copy_failed) {
    return fail(
        make_error(ErrorCode::invalid_input, fmt::format("the destination holds a copy of {} in state '{}'",
                                                         recorded.from, recorded.state))
            .with_context(shown(opts.to))
            .with_hint("its verification failed: remove it and copy again"));
  }
  if (recorded.state == store::k_copy_unverified && !resume) {
    return fail(
        make_error(ErrorCode::invalid_input, fmt::format("the destination holds a copy of {} in state '{}'",
                                                         recorded.from, recorded.state))
            .with_context(shown(opts.to))
            .with_hint(fmt::format("re-run `rfdb copy --from {} --to ...` to verify it, or remove "
                                   "it and copy again",
                                   recorded.from)));
  }
  if (resume) {
    fmt::print(ctx.err,
               "rfdb: {} holds a copy of {} committed but not verified (the copy was interrupted): "
               "verifying it\n",
               shown(opts.to), from_name);
  } else {
    RFDB_TRY(refuse_non_empty_file(opts.to));
  }
  // A SQLite file this command creates is removed again when the copy fails.
  const bool new_file = !is_url(opts.to) && opts.to != ":memory:" && !fs::exists(opts.to, ec);
  Result<store::CopyReport> report = [&]() -> Result<store::CopyReport> {
    auto dst = store::Database::open(opts.to);
    if (!dst) {
      Error e = std::move(dst).error();
      if (e.code == ErrorCode::not_found || e.code == ErrorCode::io) {
        e = std::move(e).with_hint(k_to_hint);
      }
      return fail(std::move(e));
    }
    if (ctx.verbose) {
      fmt::print(ctx.err, "rfdb: copying {} (read-only) into {}\n", shown(opts.from), shown(opts.to));
    }
    return resume ? store::compare_counts(*src, *dst) : store::copy_store(*src, *dst);
  }();
  if (!report) {
    if (new_file) {
      for (const char* suffix : {"", "-wal", "-shm"}) {
        fs::remove(opts.to + suffix, ec);
      }
    }
    return fail(std::move(report).error().with_context("into " + shown(opts.to)));
  }

  RFDB_TRY(store::run_copy_committed_hook());

  // Verify: the copy's own check, and the priors of both, byte for byte.
  Captured check;
  RFDB_TRY_ASSIGN(check,
                  capture(ctx, opts.to, [](Context& c) { return run_check(CheckOptions{"json"}, c); }));
  PriorsOptions priors_opts;
  priors_opts.format = "json";
  Captured src_priors;
  RFDB_TRY_ASSIGN(src_priors,
                  capture(ctx, opts.from, [&](Context& c) { return run_priors(priors_opts, c); }));
  Captured dst_priors;
  RFDB_TRY_ASSIGN(dst_priors, capture(ctx, opts.to, [&](Context& c) { return run_priors(priors_opts, c); }));
  const bool check_ok = check.code == 0;
  const bool counts_ok = report->counts_match();
  const bool priors_ok = src_priors.code == 0 && dst_priors.code == 0 && src_priors.out == dst_priors.out;
  const bool ok = check_ok && counts_ok && priors_ok;
  {
    auto dst = store::Database::open(opts.to);
    if (!dst) {
      return fail(std::move(dst).error().with_context("recording the verification in " + shown(opts.to)));
    }
    auto tx = dst->begin_immediate();
    if (!tx) {
      return fail(std::move(tx).error());
    }
    RFDB_TRY(store::write_copy_state(*dst, ok ? store::k_copy_verified : store::k_copy_failed, from_name));
    RFDB_TRY(tx->commit());
  }

  if (domain::is(*format, domain::OutputFormat::json)) {
    auto tables = nlohmann::ordered_json::array();
    for (const auto& t : report->tables) {
      tables.push_back({{"table", t.table}, {"source_rows", t.source_rows}, {"dest_rows", t.dest_rows}});
    }
    nlohmann::ordered_json j{{"ok", ok},
                             {"from", shown(opts.from)},
                             {"to", shown(opts.to)},
                             {"resumed", resume},
                             {"tables", tables},
                             {"counts_match", counts_ok},
                             {"check_ok", check_ok},
                             {"priors_identical", priors_ok}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(ctx.out, "{} {} into {}\n", resume ? "verified the interrupted copy of" : "copied",
               shown(opts.from), shown(opts.to));
    std::size_t width = 5;
    for (const auto& t : report->tables) {
      width = std::max(width, t.table.size());
    }
    fmt::print(ctx.out, "{:<{}}  {:>10}  {:>10}\n", "table", width, "source", "copy");
    for (const auto& t : report->tables) {
      fmt::print(ctx.out, "{:<{}}  {:>10}  {:>10}{}\n", t.table, width, t.source_rows, t.dest_rows,
                 t.source_rows == t.dest_rows ? "" : "  DIFFERS");
    }
    fmt::print(ctx.out, "check            {}\n",
               check_ok ? "ok" : "PROBLEMS FOUND (run `rfdb check` on the copy)");
    fmt::print(ctx.out, "priors (json)    {}\n", priors_ok ? "identical" : "DIFFER");
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
