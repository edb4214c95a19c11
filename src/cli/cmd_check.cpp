// `rfdb check` (see cli/cmd_check.hpp): options → ingest::check_database → the
// table or JSON, exit 1 when a problem is found.
#include "cli/cmd_check.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "ingest/database_check.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace rfdb::cli {

namespace {

// The run a stored file belongs to, or "knowledge" for a knowledge file.
std::string owner_of(const std::optional<std::string>& run_id)
{
  return run_id ? util::escape_for_display(*run_id) : std::string("knowledge");
}

// A progress line on stderr each second once the stored files' check takes
// that long (not with -q); `shown` says whether one was printed.
std::function<void(std::int64_t, std::int64_t)> check_progress(Context& ctx, bool& shown)
{
  using Clock = std::chrono::steady_clock;
  return [&ctx, &shown, last = Clock::now()](std::int64_t done, std::int64_t total) mutable {
    if (ctx.quiet || Clock::now() - last < std::chrono::seconds(1)) {
      return;
    }
    last = Clock::now();
    shown = true;
    fmt::print(ctx.err, "checking stored files: {} of {}\n", done, total);
    ctx.err.flush();
  };
}

} // namespace

Result<int> run_check(const CheckOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  auto db = open_for_read(ctx, store::OlderSchema::accept);
  if (!db) {
    return fail(db.error());
  }
  bool shown = false;
  auto checked = ingest::check_database(*db, check_progress(ctx, shown));
  if (!checked) {
    return fail(checked.error());
  }
  if (shown) {
    fmt::print(ctx.err, "checking stored files: {} of {}\n", checked->stored.files, checked->stored.files);
  }
  const store::CheckReport& report = checked->store;
  const store::StoredCheck& stored = checked->stored;
  const std::vector<ingest::Disagreement>& evidence = checked->evidence;
  const bool old = checked->needs_migrate;
  const bool ok = checked->ok();
  if (domain::is(*format, domain::OutputFormat::json)) {
    auto disagreements = nlohmann::ordered_json::array();
    for (const auto& d : evidence) {
      disagreements.push_back({{"run_id", d.run_id},
                               {"attempt", d.attempt_key},
                               {"file", d.file},
                               {"pointer", d.pointer},
                               {"field", d.field},
                               {"attempt_value", d.attempt_value},
                               {"source_value", d.source_value}});
    }
    auto file_problems = nlohmann::ordered_json::array();
    for (const auto& p : stored.file_problems) {
      file_problems.push_back({{"run_id", p.run_id ? nlohmann::ordered_json(*p.run_id) : nullptr},
                               {"file", p.rel_path},
                               {"source_id", p.source_id},
                               {"current", p.current},
                               {"problem", p.what},
                               {"detail", p.detail}});
    }
    auto dictionary_problems = nlohmann::ordered_json::array();
    for (const auto& p : stored.dictionary_problems) {
      dictionary_problems.push_back({{"dict_id", p.dict_id}, {"detail", p.detail}, {"frames", p.frames}});
    }
    nlohmann::ordered_json j{
        {"ok", ok},
        {"schema_version", report.schema_version},
        {"newest_schema_version", report.newest_schema_version},
        {"integrity", report.integrity},
        {"foreign_key_violations", report.foreign_key_violations},
        {"orphans", report.orphans},
        {"stored_files",
         {{"checked", stored.files}, {"verified", stored.verified}, {"problems", file_problems}}},
        {"dictionaries", {{"checked", stored.dictionaries}, {"problems", dictionary_problems}}},
        {"evidence_disagreements", disagreements}};
    // A stored path with bytes that are not UTF-8 is shown with U+FFFD.
    fmt::print(ctx.out, "{}\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    fmt::print(ctx.out, "schema version   {} (this rfdb: {}){}\n", report.schema_version,
               report.newest_schema_version, old ? "; run `rfdb migrate` to upgrade" : "");
    fmt::print(ctx.out, "integrity        {}\n", fmt::join(report.integrity, "; "));
    fmt::print(ctx.out, "foreign keys     {}\n",
               report.foreign_key_violations.empty()
                   ? "ok"
                   : fmt::format("{}", fmt::join(report.foreign_key_violations, "; ")));
    fmt::print(ctx.out, "orphan rows      {}\n",
               report.orphans.empty() ? "none" : fmt::format("{}", fmt::join(report.orphans, "; ")));
    fmt::print(ctx.out, "stored files     {}\n",
               old                            ? "not checked until migrated"
               : stored.file_problems.empty() ? "ok"
                                              : fmt::format("{} problem(s) in {} stored file version(s)",
                                                            stored.file_problems.size(), stored.files));
    for (const auto& p : stored.file_problems) {
      fmt::print(ctx.out, "  {} {}{}: {}: {}\n", owner_of(p.run_id), util::escape_for_display(p.rel_path),
                 p.current ? "" : fmt::format(" (superseded version, source_id {})", p.source_id), p.what,
                 util::escape_for_display(p.detail));
    }
    if (!stored.dictionary_problems.empty()) {
      fmt::print(ctx.out, "dictionaries     {} of {} do not load\n", stored.dictionary_problems.size(),
                 stored.dictionaries);
      for (const auto& p : stored.dictionary_problems) {
        fmt::print(ctx.out, "  dictionary {}: {}; {}\n", p.dict_id, p.detail,
                   p.frames == 0 ? std::string("no stored frame names it any more (not a problem)")
                                 : fmt::format("{} stored frame(s) name it", p.frames));
      }
    }
    fmt::print(ctx.out, "evidence         {}\n",
               old                ? "not checked until migrated"
               : evidence.empty() ? "ok"
                                  : fmt::format("{} disagreeing source(s)", evidence.size()));
    for (const auto& d : evidence) {
      fmt::print(ctx.out, "  {} {}: {}{} says {} = {}, the attempt has {}\n", d.run_id, d.attempt_key, d.file,
                 d.pointer.empty() ? "" : "#" + d.pointer, d.field, d.source_value, d.attempt_value);
    }
    fmt::print(ctx.out, "{}\n", ok ? "ok" : "PROBLEMS FOUND");
  }
  if (!ok && !stored.file_problems.empty() && !ctx.quiet) {
    const bool superseded = std::any_of(stored.file_problems.begin(), stored.file_problems.end(),
                                        [](const store::StoredFileProblem& p) { return !p.current; });
    fmt::print(ctx.err,
               "rfdb: hint: a damaged current version (and a damaged dictionary's current files) is "
               "stored again from its eval dir by `rfdb ingest --rehash DIR`; `rfdb export --raw` "
               "refuses to write a damaged file{}\n",
               superseded ? "; a damaged superseded version cannot be restored from the eval dir (it no "
                            "longer holds that content) and stays reported: it is history only, and a "
                            "re-derivation that needs it fails naming it"
                          : "");
  }
  return ok ? 0 : 1;
}

void add_check_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<CheckOptions>();
  auto* cmd = app.add_subcommand("check", "Check the database: integrity, foreign keys, schema version, "
                                          "every stored file against its recorded size and sha256, and "
                                          "that every attempt agrees with the files it cites");
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer("Read-only; also reads a database that needs `rfdb migrate`. Every stored file\n"
              "version is decompressed and compared with the size and sha256 recorded when it\n"
              "was ingested (a damaged frame or dictionary, a swapped frame), and every stored\n"
              "path must be a normalized relative path; a damaged file names its run and path.\n"
              "Exit 0 when healthy, 1 when a problem is found (a disagreeing source included).\n\n"
              "Example:\n  rfdb --db team.sqlite check --format json");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_check(*opts, ctx); }; });
}

} // namespace rfdb::cli
