// `rfdb ingest`: options → ingest::ingest_paths (one transaction per path) → each path's line or
// JSON element as it commits, then the stop or exit code (see cli/cmd_ingest.hpp).
#include "cli/cmd_ingest.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "cli/ingest_json.hpp"
#include "domain/tags.hpp"
#include "domain/vocab.hpp"
#include "ingest/ingest.hpp"
#include "ingest/ingest_paths.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <memory>
#include <string>

namespace rfdb::cli {

namespace {

// "<run>: <file>:<pointer>: <message>": a run's warning always names its run;
// a knowledge path's names the path first only when several are ingested.
std::string warning_text(const ingest::PathReport& p, const ingest::Warning& w, bool several_paths)
{
  std::string where = w.file;
  if (domain::is(p.kind, domain::IngestKind::run) && !p.target.empty()) {
    if (where != p.target) {           // a warning about the run itself already names it
      where = p.target + ": " + where; // always: the run is the unit a warning is about
    }
  } else if (several_paths) {
    where = p.path + ": " + where; // a knowledge path's files already name their directory
  }
  if (!w.pointer.empty()) {
    where += (w.pointer.starts_with("/") ? " " : ":") + w.pointer;
  }
  return where + ": " + w.message;
}

// One path's result line (and its superseded files).
void print_text(const ingest::PathReport& p, bool dry_run, Context& ctx)
{
  const char* would = dry_run ? "would be " : "";
  if (p.error) {
    return; // printed as an error
  }
  if (domain::is(p.kind, domain::IngestKind::run)) {
    fmt::print(ctx.out,
               "{} {}{}: {} new file(s), {} superseded, {} unchanged; {} kernel rows, {} verdicts"
               " ({} superseded kept), {} attempts\n",
               p.target, would, p.status, p.new_files.size(), p.superseded_files.size(), p.unchanged_files,
               p.kernels, p.verdicts, p.verdicts_superseded, p.attempts);
  } else {
    fmt::print(ctx.out,
               "knowledge {} {}{}: {} new file(s), {} superseded, {} unchanged, {} skipped; {} findings\n",
               p.path, would, p.status, p.new_files.size(), p.superseded_files.size(), p.unchanged_files,
               p.skipped_files, p.findings);
  }
  for (const auto& f : p.superseded_files) {
    fmt::print(ctx.out, "  superseded {}\n", f);
  }
  for (const auto& t : p.tagged) {
    fmt::print(ctx.out, "  {}tagged {}\n", would, util::escape_for_display(t));
  }
}

} // namespace

Result<int> run_ingest(const IngestOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "json"});
  if (!format) {
    return fail(format.error());
  }
  // Expanded here so each run is its own call, reported and flushed as it commits.
  const auto paths = ingest::expand_paths(opts.paths);
  if (!opts.run_id.empty() && paths.size() > 1) {
    // Several eval dirs under one id would be merged into one run.
    return fail(
        make_error(ErrorCode::usage,
                   fmt::format("--run names one run, but {} paths were given{}", paths.size(),
                               paths.size() != opts.paths.size() ? " (expanded)" : ""))
            .with_hint("give --run one PATH, or drop --run to name each eval dir after its directory"));
  }
  auto tags = domain::parse_tags(opts.tags);
  if (!tags) {
    return fail(std::move(tags).error().with_hint("e.g. rfdb ingest --tag quant=fp8 --tag tp=8 exp/e2e_x"));
  }
  // A dry run never creates a database: a missing file reads as empty.
  auto db = opts.dry_run ? open_for_dry_run(ctx) : open_for_write(ctx);
  if (!db) {
    return fail(db.error());
  }
  ingest::IngestRequest req;
  if (!opts.run_id.empty()) {
    req.run_id = opts.run_id;
  }
  req.dry_run = opts.dry_run ? ingest::DryRun::yes : ingest::DryRun::no;
  req.strict = opts.strict ? ingest::Strict::yes : ingest::Strict::no;
  req.allow_copy = opts.allow_copy ? ingest::AllowCopy::yes : ingest::AllowCopy::no;
  req.rehash = opts.rehash ? ingest::Rehash::yes : ingest::Rehash::no;
  req.follow_links = opts.follow_links ? ingest::FollowLinks::yes : ingest::FollowLinks::no;
  if (opts.max_file_size > 0) {
    req.max_file_size = opts.max_file_size;
  }
  req.now = util::format_iso_timestamp(ctx.now());
  req.tags = std::move(*tags);
  const bool progress = !ctx.quiet && paths.size() > 1;
  const bool text = domain::is(*format, domain::OutputFormat::table);
  StopScope stop(ctx);
  req.abort = [&ctx] { return aborted(ctx); };
  req.stop = [&ctx] { return interrupted(ctx); };
  JsonPathSpool spool; // only --format json reads it
  int code = 0;
  ingest::IngestObserver observer;
  observer.starting = [&](std::size_t i, std::size_t total, const std::string& path) {
    if (progress) {
      fmt::print(ctx.err, "[{}/{}] ingesting {}\n", i + 1, total, path);
      ctx.err.flush();
    }
  };
  observer.finished = [&](const ingest::PathReport& p) {
    if (text) {
      print_text(p, opts.dry_run, ctx);
      ctx.out.flush();
    }
    for (const auto& w : p.warnings) {
      if (!w.note || !ctx.quiet) {
        fmt::print(ctx.err, "rfdb: {}: {}\n", w.note ? "note" : "warning",
                   warning_text(p, w, paths.size() > 1));
      }
    }
    if (p.error) {
      code = std::max(code, report_error(ctx, "ingest", *p.error));
    }
    ctx.err.flush();
    if (!text) {
      spool.add(p);
    }
  };
  const ingest::IngestSummary done = ingest::ingest_paths(*db, paths, std::move(req), observer);
  if (domain::is(*format, domain::OutputFormat::json)) {
    if (!spool.print(ctx.out, done.all_ok && !done.stopped, opts.dry_run, done.stopped)) {
      fmt::print(ctx.err,
                 "rfdb: error: ingest: the JSON report could not be read back from its temporary "
                 "file (incomplete above); {} run(s) committed, see `rfdb runs`\n",
                 done.committed);
      return 1;
    }
  }
  const char* unit = opts.dry_run ? "checked" : "committed";
  const char* runs = done.committed == 1 ? "" : "s";
  if (done.disk_full) {
    // Every later run would fail the same way: stop at the first.
    fmt::print(ctx.err, "stopped: the disk is full; {} run{} {}, {} not tried\n", done.committed, runs, unit,
               done.paths - done.tried);
    ctx.err.flush();
    return 1;
  }
  if (done.stopped_after_last) {
    fmt::print(ctx.err, "interrupted: {} run{} {}; the stop came during the last run, which completed\n",
               done.committed, runs, unit);
    ctx.err.flush();
    return interrupted_exit_code();
  }
  if (done.stopped) {
    fmt::print(ctx.err, "interrupted: {} run{} {}, {}the rest untouched\n", done.committed, runs, unit,
               done.rolled_back ? "the run in progress rolled back, " : "");
    ctx.err.flush();
    return interrupted_exit_code();
  }
  return code;
}

void add_ingest_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<IngestOptions>();
  auto* cmd = app.add_subcommand(
      "ingest", "Store eval dirs, single artifacts or legacy knowledge (one transaction per path)");
  cmd->add_option(
         "PATH", opts->paths,
         "Eval dir, single artifact (needs --run), learned-cards dir, backend_playbook.md, _inbox proposal, "
         "or a GEAK kb store root or kb_artifacts tree (docs/kb.md)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--run", opts->run_id, "Run id for a single artifact (default: the eval dir's basename)")
      ->type_name("RUN_ID")
      ->check(non_empty("a run id"));
  cmd->add_flag("--dry-run", opts->dry_run, "Report what would change and write nothing");
  cmd->add_flag(
      "--strict", opts->strict,
      "Fail (writing nothing) on any knowledge warning, on a run's refused symlink, FIFO, socket or "
      "device, or on a reference that matches no or two attempts");
  cmd->add_flag("--allow-copy", opts->allow_copy,
                "Store a run even when it copies a stored run (same identity and measured attempts)");
  cmd->add_flag("--rehash", opts->rehash,
                "Read and hash every file even when its size and mtime match the stored version, and "
                "store again any stored copy that fails verification (see below)");
  cmd->add_flag("--follow-links", opts->follow_links,
                "Follow symlinks inside a knowledge dir (refused with a warning otherwise), and a knowledge "
                "file or single artifact given on the command line that is a link leaving its directory "
                "(the path fails otherwise)");
  cmd->add_option("--max-file-size", opts->max_file_size,
                  "Refuse (before reading) any file larger than this; suffixes K, M, G (1024-based)")
      ->type_name("BYTES")
      ->transform(CLI::AsSizeValue(false))
      ->check(positive_number())
      ->default_str("64M");
  cmd->add_option("--tag", opts->tags,
                  "Tag every ingested run key=value in the ingest's transaction (repeatable; as `rfdb tag`)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false); // one tag per --tag: a PATH after it stays a PATH
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer(R"(Examples:
  rfdb ingest exp/e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq
  rfdb ingest exp/e2e_*                      # several runs, each atomically
  rfdb ingest --run e2e_x_20260101_000000_1_a exp/x/profile/round_1/profile_roofline.json
  rfdb ingest knowledge/learned/ knowledge/backend_playbook.md
  rfdb ingest /shared/geak_kb_store repo/kb_artifacts   # GEAK kb records (docs/kb.md)
  rfdb ingest --dry-run --format json exp/e2e_x
  rfdb ingest --tag quant=fp8 --tag tp=8 exp/e2e_x   # tags, as `rfdb tag`
  rfdb ingest --max-file-size 256M exp/e2e_x   # the default limit is 64M

Re-ingesting is safe: a file whose size and mtime match the stored version is
skipped unread; a file with a new size or mtime is hashed, and new content
supersedes the older version (older roofline verdicts stay queryable); content
the path held before (a file reverted on disk) makes that version current
again. An edit that keeps both size and mtime is not seen unless --rehash is
given; a file deleted from the eval dir stays stored (`rfdb retract` withdraws
evidence). A re-ingest keeps the run's tags; --tag sets more (a run whose files
are unchanged is tagged all the same, in a transaction of its own).

--rehash reads and hashes every file regardless of its size and mtime. Use it
when mtimes do not tell edits apart: eval dirs re-extracted from a (reproducible)
tarball, copied with `rsync -a` or `cp -p`, Nix store paths (fixed mtimes), or
filesystems with coarse mtimes (FAT/exFAT, some SMB mounts); and after `rfdb
check` reports a damaged stored file: a file whose content is the stored
version's but whose stored copy fails verification is stored again ("repaired",
with a warning naming the file). A re-ingest that reads a run's files anyway
(some file's size or mtime changed) verifies and repairs the same way; one that
finds every size and mtime unchanged reads nothing and repairs nothing. A file that cannot
be parsed, a value that would poison calibration, a measured field given twice
with different values, or a file over --max-file-size fails that run with the
file (and JSON pointer) named, exit 1, and the database unchanged.

A copy of a stored run (same model, gfx, backend and workload, and the same
measured attempts, whatever its directory name or whitespace) or a partial copy
(sharing any measured kernel attempt: same kernel and lever, isolated speedup to
4 decimals, e2e delta to 3) is refused, naming the stored run and the shared
attempts; --allow-copy stores it anyway, --run STORED_RUN adds to it.
Symlinks inside the eval dir are followed; a symlink leaving it, a FIFO, socket
or device is not read (a warning; an error with --strict). Every file is opened
beneath the eval dir as the walk found it, following no link, and must be the
file the walk listed: one swapped for a link or another file meanwhile is not
read (a warning; an error with --strict), and so is a file gone meanwhile
("vanished between listing and reading"; an entry rfdb does not read, such as
an editor's swap file or a scratch directory, is skipped silently). In a
knowledge dir no symlink is followed (a warning each), and a knowledge file or
single artifact named here that is a link leaving its directory is refused
(the path fails, exit 1) unless --follow-links is given. Attempts follow
docs/attempt-model.md.

Each run's result line is printed as the run commits; warnings name their run
("rfdb: warning: RUN: FILE: …"), with one path too.
Ctrl-C (or SIGTERM) stops after the run in progress: "interrupted: N runs
committed, the rest untouched" (exit 130; 143 for SIGTERM; also when the last
or only run completed meanwhile, which it says); a second one rolls
the run in progress back and stops at once; the report (table or JSON) of what
committed is printed either way. A full disk stops the ingest at the run that
hit it (exit 1). What is read from an eval dir: docs/artifacts.md.)");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_ingest(*opts, ctx); }; });
}

} // namespace rfdb::cli
