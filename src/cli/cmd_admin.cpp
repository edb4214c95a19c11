// `retract`, `restore`, `export`, `check` and `migrate`; each run_* returns Result<int> (see
// cli/cmd_admin.hpp).
#include "cli/cmd_admin.hpp"

#include "cli/app.hpp"
#include "cli/cmd_query.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "ingest/check_evidence.hpp"
#include "store/admin.hpp"
#include "store/runs.hpp"
#include "store/sources.hpp"
#include "util/safe_file.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace rfdb::cli {

Result<int> run_retract(const RetractOptions& opts, Context& ctx)
{
  if (opts.reason.find_first_not_of(" \t\n") == std::string::npos) {
    return fail(make_error(ErrorCode::usage, "--reason must say why the run is retracted"));
  }
  auto db = open_for_write(ctx, Create::no);
  if (!db) {
    return fail(db.error());
  }
  auto run_id = resolve_run(*db, opts.run_id);
  if (!run_id) {
    return fail(run_id.error());
  }
  auto r = store::retract_run(*db, *run_id, opts.reason, util::format_iso_timestamp(ctx.now()));
  if (!r) {
    return fail(r.error());
  }
  fmt::print(ctx.out, "retracted {}: {}\n", util::escape_for_display(*run_id),
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

Result<int> run_restore(const RestoreOptions& opts, Context& ctx)
{
  auto db = open_for_write(ctx, Create::no);
  if (!db) {
    return fail(db.error());
  }
  auto run_id = resolve_run(*db, opts.run_id);
  if (!run_id) {
    return fail(run_id.error());
  }
  auto r = store::restore_run(*db, *run_id, util::format_iso_timestamp(ctx.now()));
  if (!r) {
    return fail(r.error());
  }
  fmt::print(ctx.out, "restored {}\n", *run_id);
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

namespace {

// export's format: explicit, else from -o's extension, else as every command.
Result<std::string> export_format(const ExportOptions& opts, const Context& ctx)
{
  if (opts.format.empty() && ctx.format.empty() && !opts.output.empty()) {
    const auto ext = std::filesystem::path(opts.output).extension().string();
    if (ext == ".csv" || ext == ".json") {
      return ext.substr(1);
    }
    return fail(make_error(ErrorCode::usage, "cannot tell the format of " + opts.output)
                    .with_hint("name the file *.csv or *.json, or pass --format csv|json"));
  }
  return resolve_format(ctx, opts.format, {"table", "csv", "json"});
}

} // namespace

// Where `rel_path` of a stored file goes under `base`, or nullopt when it
// could leave `base` (absolute, empty, or with a ".." component).
std::optional<std::filesystem::path> target_under(const std::filesystem::path& base,
                                                  std::string_view rel_path)
{
  const std::filesystem::path rel = std::filesystem::path(rel_path).lexically_normal();
  if (rel.empty() || rel.is_absolute() || rel.has_root_path() || rel == ".") {
    return std::nullopt;
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return std::nullopt;
    }
  }
  return base / rel;
}

// Ok when no directory between `out` (which may itself be a link the user
// chose) and `target` is a symbolic link: an export must not write through
// one to somewhere outside `out`. Errors: io, naming the link.
Result<void> no_link_below(const std::filesystem::path& out, const std::filesystem::path& target)
{
  std::filesystem::path dir = out;
  const auto rel = target.parent_path().lexically_relative(out);
  for (const auto& part : rel) {
    if (part == ".") {
      continue;
    }
    dir /= part;
    std::error_code ec;
    if (std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::symlink) {
      return fail(make_error(ErrorCode::io, dir.string() + " is a symbolic link")
                      .with_hint("export into a directory without links, or remove the link"));
    }
  }
  return {};
}

// The file under `out` a stored file is exported to: OUT/<run_id>/<rel_path>,
// knowledge files under OUT/knowledge/. Errors: invalid_input when the
// stored run id or path would write outside its directory.
Result<std::filesystem::path> export_target(const std::filesystem::path& out, const store::StoredFile& f)
{
  const std::string dir = f.run_id.value_or("knowledge");
  auto base = target_under(out, dir);
  std::optional<std::filesystem::path> target;
  if (base && base->parent_path() == out) { // the run id is one path component
    target = target_under(*base, f.rel_path);
  }
  if (!target) {
    return fail(ErrorCode::invalid_input,
                fmt::format("stored file {}/{} would be written outside {}", dir, f.rel_path, out.string()));
  }
  return *target;
}

namespace {

// A fresh directory `parent`/.<stem>.rfdb-export.<pid>.<n>, or
// `parent`/.rfdb-export.<pid>.<n> when `stem` is empty (mode 0777 less the
// umask, as a directory export creates), where export --raw writes before
// anything is in place. Errors: io.
Result<std::filesystem::path> make_staging_dir(const std::filesystem::path& parent, const std::string& stem)
{
  for (int n = 0; n < 1000; ++n) {
    auto dir = parent / (stem.empty() ? fmt::format(".rfdb-export.{}.{}", ::getpid(), n)
                                      : fmt::format(".{}.rfdb-export.{}.{}", stem, ::getpid(), n));
    if (::mkdir(dir.c_str(), 0777) == 0) {
      return dir;
    }
    if (errno != EEXIST) {
      return fail(ErrorCode::io, fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)));
    }
  }
  return fail(ErrorCode::io, "cannot find a free temporary directory name in " + parent.string());
}

// Removes the staging directory (and what is in it) unless released, then
// the directories created for it (`created`, innermost first) while empty.
struct StagingGuard {
  std::filesystem::path dir;
  std::vector<std::filesystem::path> created;
  StagingGuard() = default;
  StagingGuard(const StagingGuard&) = delete;
  StagingGuard& operator=(const StagingGuard&) = delete;
  ~StagingGuard()
  {
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      for (const auto& d : created) {
        std::filesystem::remove(d, ec); // only an empty directory
      }
    }
  }
};

// The directories create_directories(`dir`) would create, innermost first.
std::vector<std::filesystem::path> missing_dirs(std::filesystem::path dir)
{
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  while (!dir.empty() &&
         std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::not_found) {
    out.push_back(dir);
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      break;
    }
    dir = dir.parent_path();
  }
  return out;
}

// The error of an export --raw stopped by Ctrl-C or SIGTERM (exit 130/143).
Error export_stopped(const std::filesystem::path& out)
{
  return make_error(ErrorCode::interrupted,
                    fmt::format("interrupted: nothing was written under {}", out.string()));
}

// "RUN/REL (what: detail)" for a stored file that fails verification.
std::string describe_damage(const store::StoredFile& f)
{
  return fmt::format("{}/{} ({}: {})", f.run_id.value_or("knowledge"), f.rel_path, f.problem->what,
                     f.problem->detail);
}

} // namespace

// `rfdb export --raw`: every current file of one run (or of all runs and the
// knowledge files) written back byte-identical under opts.out. Each file is
// verified against its recorded size and sha256 and written into a staging
// directory first; only when every file verified and was written does
// anything land under opts.out (the staging directory renamed to it when it
// did not exist, else each file renamed into place).
Result<int> run_export_raw(const ExportOptions& opts, Context& ctx)
{
  if (opts.out.empty() || opts.all == !opts.run_id.empty()) {
    return fail(make_error(ErrorCode::usage, "--raw needs --out DIR and either a RUN or --all")
                    .with_hint("e.g. rfdb export --raw RUN --out DIR, or rfdb export --raw --all --out DIR"));
  }
  if (!opts.output.empty()) {
    return fail(make_error(ErrorCode::usage, "--raw writes files under --out DIR, not -o FILE"));
  }
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  // Ctrl-C or SIGTERM: stop before the next file, remove the staging directory
  // (and the directories made for it), write nothing under --out.
  StopScope stop(ctx);
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  store::FileScope scope;
  if (!opts.all) {
    auto run_id = resolve_run(*db, opts.run_id);
    if (!run_id) {
      return fail(run_id.error());
    }
    scope.run_id = *run_id;
  }
  std::filesystem::path out(opts.out);
  if (!out.has_filename() && out.has_parent_path()) { // "restored/" names "restored"
    out = out.parent_path();
  }
  // First every target, so an existing file refuses the export before any is written.
  scope.text = false;
  std::size_t files = 0;
  const auto check_target = [&](const store::StoredFile& f) -> Result<void> {
    std::filesystem::path target;
    RFDB_TRY_ASSIGN(target, export_target(out, f));
    RFDB_TRY(no_link_below(out, target));
    std::error_code ec;
    if (!opts.force &&
        std::filesystem::symlink_status(target, ec).type() != std::filesystem::file_type::not_found) {
      return fail(make_error(ErrorCode::io, target.string() + " exists")
                      .with_hint("pass --force to overwrite, or export into an empty directory"));
    }
    ++files;
    return {};
  };
  RFDB_TRY(store::for_each_current_file(*db, scope, check_target));
  // The staging directory: next to a missing --out (renamed to it at the
  // end), else inside --out (on its filesystem, so each file renames).
  std::error_code ec;
  const bool out_exists =
      std::filesystem::symlink_status(out, ec).type() != std::filesystem::file_type::not_found;
  if (out_exists && !std::filesystem::is_directory(out, ec)) {
    return fail(make_error(ErrorCode::io, out.string() + " exists and is not a directory")
                    .with_hint("--out names the directory to write into"));
  }
  std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  StagingGuard staging;
  if (!out_exists) {
    const auto created = missing_dirs(parent);
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return fail(ErrorCode::io, fmt::format("cannot create {}: {}", parent.string(), ec.message()));
    }
    staging.created = created;
  }
  RFDB_TRY_ASSIGN(staging.dir,
                  out_exists ? make_staging_dir(out, "") : make_staging_dir(parent, out.filename().string()));
  scope.text = true;
  scope.verify = true;
  std::set<std::string> runs;
  std::uint64_t bytes = 0;
  std::vector<std::string> damaged;
  std::vector<std::filesystem::path> written; // relative to the staging directory
  const auto write = [&](const store::StoredFile& f) -> Result<void> {
    std::filesystem::path target;
    RFDB_TRY_ASSIGN(target, export_target(out, f));
    if (f.problem) {
      damaged.push_back(describe_damage(f));
      return {};
    }
    if (!damaged.empty()) {
      return {}; // nothing will be written: only verify the rest
    }
    if (interrupted(ctx)) {
      return fail(export_stopped(out));
    }
    const auto rel = target.lexically_relative(out);
    const auto staged = staging.dir / rel;
    std::error_code mk;
    std::filesystem::create_directories(staged.parent_path(), mk);
    if (mk) {
      return fail(ErrorCode::io,
                  fmt::format("cannot create {}: {}", staged.parent_path().string(), mk.message()));
    }
    std::ofstream file(staged, std::ios::binary | std::ios::trunc);
    file.write(f.text.data(), static_cast<std::streamsize>(f.text.size()));
    file.close();
    if (!file) {
      return fail(ErrorCode::io, "cannot write " + staged.string());
    }
    written.push_back(rel);
    if (f.run_id) {
      runs.insert(*f.run_id);
    }
    bytes += f.text.size();
    return {};
  };
  if (auto r = store::for_each_current_file(*db, scope, write); !r || interrupted(ctx)) {
    Error e = r ? export_stopped(out) : std::move(r).error();
    if (e.code != ErrorCode::interrupted) {
      return fail(std::move(e));
    }
    report_error(ctx, "export", e);
    return interrupted_exit_code();
  }
  if (!damaged.empty()) {
    return fail(
        make_error(ErrorCode::invalid_input,
                   fmt::format("{} stored file{} fail{} verification, so nothing was written under {}: {}",
                               damaged.size(), damaged.size() == 1 ? "" : "s", damaged.size() == 1 ? "s" : "",
                               out.string(), fmt::join(damaged, "; ")))
            .with_hint("`rfdb check` lists every damaged stored file; `rfdb ingest --rehash EVAL_DIR` "
                       "stores a run's files again from its eval dir"));
  }
  if (!out_exists) {
    if (::rename(staging.dir.c_str(), out.c_str()) != 0) {
      return fail(ErrorCode::io, fmt::format("cannot rename {} to {}: {}", staging.dir.string(), out.string(),
                                             std::strerror(errno)));
    }
    staging.dir.clear();
  } else {
    // Every target checked before the first rename: a refusal writes nothing.
    for (const auto& rel : written) {
      const auto target = out / rel;
      RFDB_TRY(no_link_below(out, target));
      RFDB_TRY(util::check_plain_target(target));
    }
    for (const auto& rel : written) {
      const auto target = out / rel;
      RFDB_TRY(no_link_below(out, target));
      std::error_code mk;
      std::filesystem::create_directories(target.parent_path(), mk);
      if (mk) {
        return fail(ErrorCode::io,
                    fmt::format("cannot create {}: {}", target.parent_path().string(), mk.message()));
      }
      RFDB_TRY(util::check_plain_target(target));
      if (::rename((staging.dir / rel).c_str(), target.c_str()) != 0) {
        return fail(ErrorCode::io, fmt::format("cannot rename {} to {}: {}", (staging.dir / rel).string(),
                                               target.string(), std::strerror(errno)));
      }
    }
  }
  if (domain::is(*format, domain::OutputFormat::json)) {
    const nlohmann::ordered_json j{
        {"out", opts.out}, {"runs", runs.size()}, {"files", files}, {"bytes", bytes}};
    fmt::print(ctx.out, "{}\n", j.dump(2));
  } else {
    fmt::print(ctx.out, "wrote {} files ({} bytes) of {} run(s) under {}\n", files, bytes, runs.size(),
               opts.out);
  }
  return 0;
}

Result<int> run_export(const ExportOptions& opts, Context& ctx)
{
  if (opts.raw) {
    return run_export_raw(opts, ctx);
  }
  if (opts.all || opts.force || !opts.run_id.empty() || !opts.out.empty()) {
    return fail(make_error(ErrorCode::usage, "RUN, --all, --out and --force go with --raw")
                    .with_hint("rfdb export --raw RUN --out DIR writes a run's stored files back"));
  }
  RFDB_TRY(refuse_database_target(ctx, opts.output, "-o"));
  auto format = export_format(opts, ctx);
  if (!format) {
    return fail(format.error());
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  auto table = store::run_named_query(*db, "export_attempts", {});
  if (!table) {
    return fail(table.error());
  }
  if (opts.output.empty()) {
    print_table(*table, *format, ctx.out);
    return 0;
  }
  // Written next to the target and renamed over it, as report -o does: a
  // full disk leaves the old file whole; a symlink or FIFO is refused.
  std::ostringstream text;
  print_table(*table, *format, text);
  RFDB_TRY(util::write_file_atomically(opts.output, text.str()));
  if (!ctx.quiet) {
    fmt::print(ctx.err, "wrote {} attempt rows to {}\n", table->rows.size(), opts.output);
  }
  return 0;
}

void add_export_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "Export every attempt with its prediction and outcome (the "
                                           "calibration rows), or with --raw the stored files");
  cmd->add_option(
         "--format", opts->format,
         "csv | json | table (default: from -o's extension; else table on a terminal, json otherwise); "
         "--raw: table | json summary")
      ->check(one_of({"csv", "json", "table"}));
  cmd->add_option("-o,--output", opts->output, "Write to FILE instead of stdout")
      ->type_name("FILE")
      ->check(path_validator());
  cmd->add_flag("--raw", opts->raw,
                "Write the current version of every stored file back, byte-identical to what was "
                "ingested, to DIR/<run_id>/<rel_path> (knowledge files: DIR/knowledge/<rel_path>)");
  cmd->add_option("RUN", opts->run_id, "--raw: the run (id or any unique prefix of it)");
  cmd->add_flag("--all", opts->all, "--raw: every run, and the knowledge files");
  cmd->add_option("--out", opts->out, "--raw: the directory to write into (created if missing)")
      ->type_name("DIR");
  cmd->add_flag("--force", opts->force,
                "--raw: overwrite files that exist (default: refuse before writing any)");
  cmd->footer(
      "Columns: docs/json.md (export) and docs/schema.md (attempts).\n\n"
      "--raw checks every file against the size and sha256 recorded when it was ingested and\n"
      "writes into a temporary directory first: when any file fails, nothing is written (exit 1,\n"
      "naming each damaged file; `rfdb ingest --rehash EVAL_DIR` stores them again).\n\n"
      "Examples:\n  rfdb export -o attempts.csv\n  rfdb export | jq '.[] | select(.op_class == \"attn\")'\n"
      "  rfdb export --raw e2e_Qwen3.5-27B --out restored/\n"
      "  rfdb export --raw --all --out backup/ --format json   # {\"out\", \"runs\", \"files\", \"bytes\"}");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_export(*opts, ctx); }; });
}

namespace {

// The run a stored file belongs to, or "knowledge" for a knowledge file.
std::string owner_of(const std::optional<std::string>& run_id)
{
  return run_id ? util::escape_for_display(*run_id) : std::string("knowledge");
}

// `check`'s verification of the stored files, with a progress line on
// stderr each second once it takes that long (not with -q).
Result<store::StoredCheck> check_stored(store::Database& db, Context& ctx)
{
  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  bool shown = false;
  const auto progress = [&](std::int64_t done, std::int64_t total) {
    if (ctx.quiet || Clock::now() - last < std::chrono::seconds(1)) {
      return;
    }
    last = Clock::now();
    shown = true;
    fmt::print(ctx.err, "checking stored files: {} of {}\n", done, total);
    ctx.err.flush();
  };
  auto out = store::check_stored_files(db, progress);
  if (out && shown) {
    fmt::print(ctx.err, "checking stored files: {} of {}\n", out->files, out->files);
  }
  return out;
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
  auto report = store::check(*db);
  if (!report) {
    return fail(report.error());
  }
  const bool old = report->schema_version < report->newest_schema_version;
  // The stored files and the evidence are read in this schema's layout
  // (compressed since migration 0008): an older file is checked once migrated.
  // Citations of a stored file that fails verification are not re-read.
  Result<store::StoredCheck> stored = store::StoredCheck();
  Result<std::vector<ingest::Disagreement>> evidence = std::vector<ingest::Disagreement>();
  if (!old) {
    stored = check_stored(*db, ctx);
    if (!stored) {
      return fail(stored.error());
    }
    evidence = ingest::check_evidence(*db, stored->damaged);
  }
  if (!evidence) {
    return fail(evidence.error());
  }
  const bool ok = report->ok() && stored->ok() && evidence->empty();
  if (domain::is(*format, domain::OutputFormat::json)) {
    auto disagreements = nlohmann::ordered_json::array();
    for (const auto& d : *evidence) {
      disagreements.push_back({{"run_id", d.run_id},
                               {"attempt", d.attempt_key},
                               {"file", d.file},
                               {"pointer", d.pointer},
                               {"field", d.field},
                               {"attempt_value", d.attempt_value},
                               {"source_value", d.source_value}});
    }
    auto file_problems = nlohmann::ordered_json::array();
    for (const auto& p : stored->file_problems) {
      file_problems.push_back({{"run_id", p.run_id ? nlohmann::ordered_json(*p.run_id) : nullptr},
                               {"file", p.rel_path},
                               {"source_id", p.source_id},
                               {"current", p.current},
                               {"problem", p.what},
                               {"detail", p.detail}});
    }
    auto dictionary_problems = nlohmann::ordered_json::array();
    for (const auto& p : stored->dictionary_problems) {
      dictionary_problems.push_back({{"dict_id", p.dict_id}, {"detail", p.detail}, {"frames", p.frames}});
    }
    nlohmann::ordered_json j{
        {"ok", ok},
        {"schema_version", report->schema_version},
        {"newest_schema_version", report->newest_schema_version},
        {"integrity", report->integrity},
        {"foreign_key_violations", report->foreign_key_violations},
        {"orphans", report->orphans},
        {"stored_files",
         {{"checked", stored->files}, {"verified", stored->verified}, {"problems", file_problems}}},
        {"dictionaries", {{"checked", stored->dictionaries}, {"problems", dictionary_problems}}},
        {"evidence_disagreements", disagreements}};
    // A stored path with bytes that are not UTF-8 is shown with U+FFFD.
    fmt::print(ctx.out, "{}\n", j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    fmt::print(ctx.out, "schema version   {} (this rfdb: {}){}\n", report->schema_version,
               report->newest_schema_version, old ? "; run `rfdb migrate` to upgrade" : "");
    fmt::print(ctx.out, "integrity        {}\n", fmt::join(report->integrity, "; "));
    fmt::print(ctx.out, "foreign keys     {}\n",
               report->foreign_key_violations.empty()
                   ? "ok"
                   : fmt::format("{}", fmt::join(report->foreign_key_violations, "; ")));
    fmt::print(ctx.out, "orphan rows      {}\n",
               report->orphans.empty() ? "none" : fmt::format("{}", fmt::join(report->orphans, "; ")));
    fmt::print(ctx.out, "stored files     {}\n",
               old                             ? "not checked until migrated"
               : stored->file_problems.empty() ? "ok"
                                               : fmt::format("{} problem(s) in {} stored file version(s)",
                                                             stored->file_problems.size(), stored->files));
    for (const auto& p : stored->file_problems) {
      fmt::print(ctx.out, "  {} {}{}: {}: {}\n", owner_of(p.run_id), util::escape_for_display(p.rel_path),
                 p.current ? "" : fmt::format(" (superseded version, source_id {})", p.source_id), p.what,
                 util::escape_for_display(p.detail));
    }
    if (!stored->dictionary_problems.empty()) {
      fmt::print(ctx.out, "dictionaries     {} of {} do not load\n", stored->dictionary_problems.size(),
                 stored->dictionaries);
      for (const auto& p : stored->dictionary_problems) {
        fmt::print(ctx.out, "  dictionary {}: {}; {}\n", p.dict_id, p.detail,
                   p.frames == 0 ? std::string("no stored frame names it any more (not a problem)")
                                 : fmt::format("{} stored frame(s) name it", p.frames));
      }
    }
    fmt::print(ctx.out, "evidence         {}\n",
               old                 ? "not checked until migrated"
               : evidence->empty() ? "ok"
                                   : fmt::format("{} disagreeing source(s)", evidence->size()));
    for (const auto& d : *evidence) {
      fmt::print(ctx.out, "  {} {}: {}{} says {} = {}, the attempt has {}\n", d.run_id, d.attempt_key, d.file,
                 d.pointer.empty() ? "" : "#" + d.pointer, d.field, d.source_value, d.attempt_value);
    }
    fmt::print(ctx.out, "{}\n", ok ? "ok" : "PROBLEMS FOUND");
  }
  if (!ok && !stored->file_problems.empty() && !ctx.quiet) {
    const bool superseded = std::any_of(stored->file_problems.begin(), stored->file_problems.end(),
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

Result<int> run_migrate(const MigrateOptions& /*opts*/, Context& ctx)
{
  auto report = store::migrate_database(ctx.db_path);
  const std::string shown = store::display_name(ctx.db_path);
  if (!report) {
    return fail(std::move(report).error().with_context(shown));
  }
  if (report->created) {
    fmt::print(ctx.out, "created {} at schema version {}\n", shown, report->to_version);
  } else if (report->from_version == report->to_version) {
    fmt::print(ctx.out, "{} is at schema version {}: nothing to do\n", shown, report->to_version);
  } else if (report->backup.empty()) { // PostgreSQL: no backup (pg_dump takes one)
    fmt::print(ctx.out, "migrated {} from schema version {} to {}\n", shown, report->from_version,
               report->to_version);
  } else {
    fmt::print(ctx.out, "migrated {} from schema version {} to {}; the old file is kept as {}\n", ctx.db_path,
               report->from_version, report->to_version, report->backup);
  }
  return 0;
}

void add_migrate_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<MigrateOptions>();
  auto* cmd = app.add_subcommand("migrate", "Upgrade the database to this rfdb's schema (backup first)");
  cmd->footer("Before changing anything, the database is copied with SQLite's VACUUM INTO to\n"
              "PATH.v<OLD_VERSION>.bak (a free name is chosen if that exists). A database\n"
              "that does not exist is created empty. Older rfdb binaries cannot read the\n"
              "upgraded file; a database newer than this rfdb, or not an rfdb database, is\n"
              "refused untouched (exit 3).\n\n"
              "Example:\n  rfdb --db /shared/team.sqlite migrate");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_migrate(*opts, ctx); }; });
}

} // namespace rfdb::cli
