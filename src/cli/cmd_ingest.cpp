// `rfdb ingest`: options → ingest::ingest_paths (one transaction per path) → each path's line or
// JSON element as it commits, then the stop or exit code (see cli/cmd_ingest.hpp).
#include "cli/cmd_ingest.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "ingest/ingest.hpp"
#include "ingest/ingest_paths.hpp"
#include "util/time.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <string_view>
#include <unistd.h>

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

nlohmann::ordered_json path_json(const ingest::PathReport& p)
{
  auto warnings = nlohmann::ordered_json::array();
  for (const auto& w : p.warnings) {
    warnings.push_back({{"file", w.file},
                        {"pointer", w.pointer},
                        {"message", w.message},
                        {"severity", w.note ? "note" : "warning"}});
  }
  return {
      {"path", p.path},
      {"kind", p.kind.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.kind)},
      {"target", p.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.target)},
      {"status", p.status},
      {"files",
       {{"added", p.new_files},
        {"superseded", p.superseded_files},
        {"unchanged", p.unchanged_files},
        {"skipped", p.skipped_files}}},
      {"rows",
       {{"kernels", p.kernels},
        {"verdicts", p.verdicts},
        {"verdicts_superseded", p.verdicts_superseded},
        {"attempts", p.attempts},
        {"findings", p.findings}}},
      {"warnings", warnings},
      {"error", p.error ? nlohmann::ordered_json(p.error->describe()) : nlohmann::ordered_json(nullptr)},
  };
}

// True when nlohmann's dump writes `s` as itself between quotes: printable
// ASCII without '"' or '\\'.
bool plain_json_string(std::string_view s)
{
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

// The element of a path without warnings or error whose strings are all
// plain, formatted as path_json(p).dump(2) indented by four spaces (what
// JsonPathSpool::add writes), without building the JSON object: the common
// case of a re-ingest, one element per unchanged run. nullopt: any other
// report (format it with nlohmann).
std::optional<std::string> plain_path_element(const ingest::PathReport& p)
{
  if (!p.warnings.empty() || p.error || p.kind.empty() || p.target.empty()) {
    return std::nullopt;
  }
  for (const std::string* s : {&p.path, &p.kind, &p.target, &p.status}) {
    if (!plain_json_string(*s)) {
      return std::nullopt;
    }
  }
  const auto plain = [](const std::vector<std::string>& v) {
    return std::all_of(v.begin(), v.end(), [](const std::string& s) { return plain_json_string(s); });
  };
  if (!plain(p.new_files) || !plain(p.superseded_files)) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(640 + p.path.size() + p.target.size());
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "    {{\n"
                 "      \"path\": \"{}\",\n"
                 "      \"kind\": \"{}\",\n"
                 "      \"target\": \"{}\",\n"
                 "      \"status\": \"{}\",\n"
                 "      \"files\": {{\n",
                 p.path, p.kind, p.target, p.status);
  const auto array = [&](std::string_view key, const std::vector<std::string>& v) {
    fmt::format_to(it, "        \"{}\": [", key);
    for (std::size_t i = 0; i < v.size(); ++i) {
      fmt::format_to(it, "{}\n          \"{}\"", i == 0 ? "" : ",", v[i]);
    }
    out += v.empty() ? "],\n" : "\n        ],\n";
  };
  array("added", p.new_files);
  array("superseded", p.superseded_files);
  fmt::format_to(it,
                 "        \"unchanged\": {},\n"
                 "        \"skipped\": {}\n"
                 "      }},\n"
                 "      \"rows\": {{\n"
                 "        \"kernels\": {},\n"
                 "        \"verdicts\": {},\n"
                 "        \"verdicts_superseded\": {},\n"
                 "        \"attempts\": {},\n"
                 "        \"findings\": {}\n"
                 "      }},\n"
                 "      \"warnings\": [],\n"
                 "      \"error\": null\n"
                 "    }}",
                 p.unchanged_files, p.skipped_files, p.kernels, p.verdicts, p.verdicts_superseded, p.attempts,
                 p.findings);
  return out;
}

// The `--format json` report's "paths" elements, each written out as its path
// finishes: to an unlinked temporary file in $TMPDIR (else /tmp), so one call
// over thousands of runs keeps a flat memory footprint. Every element is
// flushed as it is added; when the file cannot be made or a write fails (a
// full disk), the elements already spooled are read back and the report goes
// on in memory, so nothing is lost. The printed document is byte-identical to
// dumping the whole report object with an indent of 2:
// {"ok", "dry_run", "interrupted", "paths"}.
class JsonPathSpool {
public:
  JsonPathSpool() : m_file(open_temporary(), &std::fclose) {}

  void add(const ingest::PathReport& p)
  {
    std::string out = m_count == 0 ? "\n" : ",\n";
    if (auto plain = plain_path_element(p)) {
      out += *plain;
    } else {
      // Each element sits two levels deep ("paths" inside the root object):
      // indent every line of its own dump by four spaces. Strings never hold
      // a raw newline in JSON text, so splitting on '\n' is safe.
      const std::string element =
          path_json(p).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      std::size_t begin = 0;
      while (begin <= element.size()) {
        const auto end = std::min(element.find('\n', begin), element.size());
        out.append("    ").append(element, begin, end - begin);
        if (end < element.size()) {
          out += '\n';
        }
        begin = end + 1;
      }
    }
    ++m_count;
    if (m_file && std::fwrite(out.data(), 1, out.size(), m_file.get()) == out.size() &&
        std::fflush(m_file.get()) == 0) {
      m_spooled += out.size();
      return;
    }
    if (m_file) {
      move_to_memory();
    }
    m_memory += out;
  }

  // Print the whole report document (and a final newline) to `out`, the
  // spooled elements streamed from the file. Errors: false when they cannot
  // all be read back (the document printed is then incomplete).
  [[nodiscard]] bool print(std::ostream& out, bool ok, bool dry_run, bool stopped)
  {
    fmt::print(out, "{{\n  \"ok\": {},\n  \"dry_run\": {},\n  \"interrupted\": {},\n  \"paths\": [", ok,
               dry_run, stopped);
    if (m_file) {
      if (std::fseek(m_file.get(), 0, SEEK_SET) != 0) {
        return false;
      }
      std::array<char, 65536> buf{};
      std::size_t left = m_spooled;
      while (left > 0) {
        const std::size_t n = std::fread(buf.data(), 1, std::min(left, buf.size()), m_file.get());
        if (n == 0) {
          return false;
        }
        out.write(buf.data(), static_cast<std::streamsize>(n));
        left -= n;
      }
    }
    if (m_lost) {
      return false;
    }
    out << m_memory;
    out << (m_count == 0 ? "]\n}\n" : "\n  ]\n}\n");
    return true;
  }

private:
  static std::FILE* open_temporary()
  {
    const char* dir = std::getenv("TMPDIR");
    std::string templ = (dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("/tmp")) +
                        "/rfdb-ingest-report.XXXXXX";
    int fd = ::mkstemp(templ.data());
    if (fd < 0 && templ.rfind("/tmp/", 0) != 0) {
      templ = "/tmp/rfdb-ingest-report.XXXXXX";
      fd = ::mkstemp(templ.data());
    }
    if (fd < 0) {
      return nullptr;
    }
    ::unlink(templ.c_str());
    std::FILE* file = ::fdopen(fd, "w+b");
    if (file == nullptr) {
      ::close(fd);
    }
    return file;
  }

  // Read back the m_spooled bytes written so far (they precede m_memory) and
  // drop the file.
  void move_to_memory()
  {
    std::string spooled(m_spooled, '\0');
    if (std::fseek(m_file.get(), 0, SEEK_SET) != 0 ||
        std::fread(spooled.data(), 1, spooled.size(), m_file.get()) != spooled.size()) {
      m_lost = true;
    }
    m_memory.insert(0, spooled);
    m_spooled = 0;
    m_file.reset();
  }

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> m_file;
  std::size_t m_spooled = 0; // bytes written and flushed to m_file
  std::string m_memory;      // the elements after those in m_file
  std::size_t m_count = 0;
  bool m_lost = false; // the file could not be read back
};

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
         "Eval dir, single artifact (needs --run), learned-cards dir, backend_playbook.md or _inbox proposal")
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
  cmd->add_option("--format", opts->format, "table | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "json"}));
  cmd->footer(R"(Examples:
  rfdb ingest exp/e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq
  rfdb ingest exp/e2e_*                      # several runs, each atomically
  rfdb ingest --run e2e_x_20260101_000000_1_a exp/x/profile/round_1/profile_roofline.json
  rfdb ingest knowledge/learned/ knowledge/backend_playbook.md
  rfdb ingest --dry-run --format json exp/e2e_x
  rfdb ingest --max-file-size 256M exp/e2e_x   # the default limit is 64M

Re-ingesting is safe: a file whose size and mtime match the stored version is
skipped unread; a file with a new size or mtime is hashed, and new content
supersedes the older version (older roofline verdicts stay queryable); content
the path held before (a file reverted on disk) makes that version current
again. An edit that keeps both size and mtime is not seen unless --rehash is
given; a file deleted from the eval dir stays stored (`rfdb retract` withdraws
evidence).

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
