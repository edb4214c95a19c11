// `rfdb ingest`: paths → one store transaction per run (or knowledge path); no SQL here.
#include "ingest/ingest.hpp"

#include "domain/vocab.hpp"
#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/kb/kb.hpp"
#include "ingest/knowledge/ingest.hpp"
#include "ingest/run_copy.hpp"
#include "store/run_writer.hpp"
#include "store/sources.hpp"
#include "store/tags.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <sys/stat.h>

namespace rfdb::ingest {

namespace fs = std::filesystem;

bool IngestReport::ok() const
{
  return std::none_of(paths.begin(), paths.end(), [](const PathReport& p) { return p.error.has_value(); });
}

// Statements prepared once per Ingester and reused for every run
// (preparing them per run cost 7–10 % of ingest CPU in tools/bench, and
// half of a re-ingest's).
struct Ingester::Prepared {
  store::Database& db;
  store::RunWriter writer;
  store::Sources sources;
  bool read_files = false;   // the last eval dir's files had to be read (not unchanged by their stat)
  bool tags_written = false; // the last run's --tag went into its ingest transaction

  static Result<std::unique_ptr<Prepared>> create(store::Database& db)
  {
    auto writer = store::RunWriter::create(db);
    if (!writer) {
      return fail(std::move(writer).error());
    }
    auto sources = store::Sources::prepare(db);
    if (!sources) {
      return fail(std::move(sources).error());
    }
    return std::make_unique<Prepared>(Prepared{db, std::move(*writer), std::move(*sources)});
  }
};

namespace {

using Prepared = Ingester::Prepared;

// The file of `files` (`f`) as loaded ahead, when it was loaded with the
// same content (null otherwise).
FileAhead* ahead_of(const FileData& f, const std::vector<FileData>& files,
                    std::vector<std::optional<FileAhead>>* ahead)
{
  if (ahead == nullptr) {
    return nullptr;
  }
  const auto i = static_cast<std::size_t>(&f - files.data());
  if (i >= ahead->size() || !(*ahead)[i]) {
    return nullptr;
  }
  FileAhead& a = *(*ahead)[i];
  return a.text.data() == f.content.data() && a.text.size() == f.content.size() ? &a : nullptr;
}

// Store the files that are new (or new versions); fill the report's lists.
// Each parse in `parsed` learns the source_id of its stored version.
// `ahead`: the files as the prefetcher loaded them (see prevalidate), whose
// frames put_source uses when made with the dictionary it compresses against.
// `unstored`: the run stores no file yet (checked in this transaction), so
// put_source looks nothing up.
Result<void> store_sources(Prepared& p, const std::string& run_id, const std::vector<FileData>& files,
                           std::vector<std::optional<FileAhead>>* ahead, const std::string& now,
                           bool unstored, ParsedFiles& parsed, PathReport& rep)
{
  for (const auto& f : files) {
    const FileAhead* a = ahead_of(f, files, ahead);
    const store::FrameAhead* frame = a != nullptr && a->frame ? &*a->frame : nullptr;
    store::PutSource put;
    RFDB_TRY_ASSIGN(put, p.sources.put_source(store::SourceFile{run_id, f.rel_path, f.kind.kind, std::nullopt,
                                                                f.sha256, f.content, now, f.mtime_ns},
                                              frame, unstored));
    if (const auto it = parsed.find(f.rel_path);
        it != parsed.end() && it->second.text.data() == f.content.data()) {
      it->second.source_id = put.source_id;
    }
    if (put.action == store::PutSource::Action::unchanged) {
      ++rep.unchanged_files;
      continue;
    }
    rep.new_files.push_back(f.rel_path);
    if (put.repaired) {
      rep.warnings.push_back(Warning{f.rel_path, "",
                                     "the stored copy of the version made current again failed verification: "
                                     "stored again from this file",
                                     false});
    }
    if (put.superseded_id) {
      rep.superseded_files.push_back(f.rel_path);
    }
  }
  return {};
}

// The run's stored versions, without decompressing the ones `parsed` holds.
Result<std::vector<StoredSource>> load_sources(Prepared& p, const std::string& run_id,
                                               const ParsedFiles& parsed)
{
  std::vector<std::int64_t> held;
  for (const auto& [rel_path, file] : parsed) {
    if (file.source_id != 0 && file.parsed) {
      held.push_back(file.source_id);
    }
  }
  std::sort(held.begin(), held.end());
  std::vector<store::SourceRow> rows;
  RFDB_TRY_ASSIGN(rows, p.sources.run_sources(run_id, held));
  std::vector<StoredSource> out;
  out.reserve(rows.size());
  for (auto& row : rows) {
    StoredSource src;
    src.source_id = row.source_id;
    src.rel_path = std::move(row.rel_path);
    auto kind = classify_artifact(src.rel_path);
    src.kind = kind.value_or(ArtifactKind{std::move(row.kind), "", "", ""});
    src.raw = std::move(row.raw);
    src.superseded = row.superseded;
    src.text_elided = row.text_elided;
    out.push_back(std::move(src));
  }
  return out;
}

// Refuse a copy; with --allow-copy store it with a note naming the original.
Result<void> check_copy(Prepared& p, const DerivedRun& derived, const IngestRequest& req,
                        const std::string& dir_basename, PathReport& rep)
{
  std::optional<CopyOf> copy;
  RFDB_TRY_ASSIGN(copy, find_run_copy(p.writer, derived));
  if (!copy) {
    return {};
  }
  const std::string what =
      fmt::format("a {}copy of stored run '{}' (same model, gfx, backend and workload, and {})",
                  copy->partial ? "partial " : "", copy->run_id, copy->why);
  if (req.allow_copy == AllowCopy::yes) {
    const char* stored = req.dry_run == DryRun::yes ? "would be stored anyway" : "stored anyway";
    rep.warnings.push_back(
        Warning{dir_basename, "", fmt::format("{}: {} (--allow-copy)", what, stored), true});
    return {};
  }
  return fail(make_error(ErrorCode::invalid_input, what + ": its evidence would count twice")
                  .with_hint(fmt::format("if it is the same run, ingest it as --run {}; to store '{}' as a "
                                         "separate run anyway, pass --allow-copy",
                                         copy->run_id, derived.run.run_id)));
}

// The attempts rows of a derived run: the measured candidate's record (every
// store::Attempt member its file stated) with what references added, its
// prediction snapshot and its citations.
std::vector<store::Attempt> attempt_rows(const std::vector<DerivedAttempt>& attempts)
{
  std::vector<store::Attempt> out;
  out.reserve(attempts.size());
  for (const auto& d : attempts) {
    store::Attempt n = static_cast<const store::Attempt&>(d.record);
    n.attempt_key = d.key;
    n.kind = d.kind;
    n.candidate_short_name = d.candidate_short_name;
    n.task = d.task;
    n.measured = d.measured;
    n.deployed = d.deployed;
    n.post_measured = d.post_measured;
    n.validation_class = d.validation_class;
    n.validation_speedup = d.validation_speedup;
    n.prediction = d.prediction;
    n.prediction_verdict = d.prediction_verdict;
    n.post_efficiency = d.post_efficiency;
    n.profiler_hbm_undercount = d.profiler_hbm_undercount;
    n.citations = d.sources;
    out.push_back(std::move(n));
  }
  return out;
}

// Parse every file up front: bad input fails before the database is touched.
// A key repeated with equal values, or outside the measured fields, is a
// warning (parse_json_text refuses the rest). Each file's parse is kept in
// `parsed` for derive_run, which then does not parse it again. `ahead` (by
// index into `all`, which holds every file of `files`) are the files the
// prefetcher loaded: a parse made there of the same text is taken instead of
// parsing again, with its warnings and error as they were.
Result<void> prevalidate(const std::vector<const FileData*>& files, const std::vector<FileData>& all,
                         std::vector<std::optional<FileAhead>>* ahead, std::vector<Warning>& warnings,
                         ParsedFiles& parsed)
{
  for (const FileData* file : files) {
    const FileData& f = *file;
    std::optional<Result<ParsedArtifact>> pre;
    if (FileAhead* a = ahead_of(f, all, ahead); a != nullptr && a->artifact) {
      pre = std::move(a->artifact);
      a->artifact.reset(); // a retry parses again
      warnings.insert(warnings.end(), std::make_move_iterator(a->warnings.begin()),
                      std::make_move_iterator(a->warnings.end()));
      a->warnings.clear();
    }
    ParsedArtifact artifact;
    if (pre) {
      RFDB_TRY_ASSIGN(artifact, std::move(*pre));
    } else {
      RFDB_TRY_ASSIGN(artifact, parse_artifact(f.kind, f.rel_path, f.content, warnings));
    }
    for (const auto& d : artifact.duplicates) {
      const std::string message =
          d.measured ? fmt::format("duplicate key '{}' repeats the same value {}", d.key, d.last_value)
                     : fmt::format("duplicate key '{}': the last value is kept", d.key);
      warnings.push_back(Warning{f.rel_path, d.pointer, message, false});
    }
    artifact.duplicates.clear();
    parsed.insert_or_assign(f.rel_path, ParsedFile{f.content, std::move(artifact)});
  }
  return {};
}

// The recorded stat of a run's current files, by rel_path.
using StoredStats = std::map<std::string, store::SourceStat, std::less<>>;

Result<StoredStats> stored_stats_of(Prepared& p, const std::string& run_id)
{
  std::vector<store::SourceStat> rows;
  RFDB_TRY_ASSIGN(rows, p.sources.current_stats(run_id));
  StoredStats out;
  for (auto& r : rows) {
    std::string key = r.rel_path;
    out.emplace(std::move(key), std::move(r));
  }
  return out;
}

bool same_stat(const FileData& f, const store::SourceStat& s)
{
  return s.bytes == f.size && s.mtime_ns == f.mtime_ns;
}

// True when every file of the eval dir is one of the run's current files,
// with the size and mtime recorded when it was stored: unchanged without
// being read (a file rewritten with the same size and mtime is not noticed —
// the trade-off rsync and make make; --rehash skips this test, and nor is a
// damaged stored copy: the files are not read, so not compared). A stored
// file no longer on disk keeps its version: deleting raw artifacts does not
// withdraw evidence.
bool unchanged_by_stat(const std::vector<FileData>& files, const StoredStats& stored)
{
  if (files.empty() || files.size() > stored.size()) {
    return false;
  }
  return std::all_of(files.begin(), files.end(), [&](const FileData& f) {
    const auto it = stored.find(f.rel_path);
    return it != stored.end() && same_stat(f, it->second);
  });
}

// A current version (source_id) whose stored copy failed verification, with
// the file read now, whose sha256 is the one the row records, and what
// differed.
struct Repair {
  std::int64_t source_id = 0;
  const FileData* file = nullptr;
  std::string problem; // "sha256: the decompressed text's sha256 is ..."
};
using Repairs = std::vector<Repair>;

// Verify the stored copy of `f`'s current version (`source_id`, stored with
// f's content): a copy that does not decompress to the row's size and
// sha256 is queued in `repairs` (restore_damaged warns once it is stored
// again). Errors: db.
Result<void> verify_current(Prepared& p, std::int64_t source_id, const FileData& f, Repairs& repairs)
{
  store::StoredVersionCheck check;
  RFDB_TRY_ASSIGN(check, p.sources.verify_stored(source_id));
  if (check.verified.problem) {
    repairs.push_back(Repair{
        source_id, &f, fmt::format("{}: {}", check.verified.problem->what, check.verified.problem->detail)});
  }
  return {};
}

// Store each queued file's text again over its damaged copy, then warn
// (naming what differed) that it was. Call inside a write transaction.
// Errors: db; invalid_input naming the file when the new frame does not
// verify.
Result<void> restore_damaged(Prepared& p, const Repairs& repairs, const std::string& now, PathReport& rep)
{
  for (const auto& r : repairs) {
    auto restored = p.sources.restore_text(r.source_id, r.file->content, r.file->sha256, now);
    if (!restored) {
      return fail(std::move(restored).error().with_context(fmt::format(
          "{} (source_id {}): repairing its damaged stored copy", r.file->rel_path, r.source_id)));
    }
  }
  for (const auto& r : repairs) {
    rep.warnings.push_back(Warning{
        r.file->rel_path, "",
        fmt::format("the stored copy failed verification ({}): stored again from this file", r.problem),
        false});
  }
  return {};
}

// A run whose content is unchanged but some of whose files were touched
// (or stored before their stat was recorded): record their stat so the next
// re-ingest decides without reading them. `touched` pairs the current
// version (stored with the file's content) with the file. Nothing is written
// with --dry-run or when every stat is recorded already.
Result<void> record_stats(Prepared& p, const std::vector<std::pair<std::int64_t, const FileData*>>& touched,
                          const Repairs& repairs, const IngestRequest& req, PathReport& rep)
{
  if (req.dry_run == DryRun::yes) {
    for (const auto& r : repairs) {
      rep.warnings.push_back(Warning{
          r.file->rel_path, "",
          fmt::format("the stored copy failed verification ({}): --dry-run, not stored again", r.problem),
          false});
    }
    return {};
  }
  if (touched.empty() && repairs.empty()) {
    return {};
  }
  auto tx_result = p.db.begin_immediate();
  if (!tx_result) {
    return fail(std::move(tx_result).error());
  }
  for (const auto& [source_id, f] : touched) {
    RFDB_TRY(p.sources.set_stat(source_id, f->mtime_ns));
  }
  RFDB_TRY(restore_damaged(p, repairs, req.now, rep));
  return tx_result->commit();
}

// Entries of an eval dir that were not read: a warning each, or with
// --strict one error naming them all.
Result<void> refuse_entries(const std::vector<RefusedEntry>& refused, Strict strict,
                            std::vector<Warning>& warnings)
{
  if (refused.empty()) {
    return {};
  }
  if (strict == Strict::yes) {
    std::string list;
    for (const auto& r : refused) {
      list += fmt::format("{}{} ({})", list.empty() ? "" : "; ", r.rel_path, r.reason);
    }
    return fail(
        make_error(ErrorCode::invalid_input, "--strict: refused to read " + list)
            .with_hint("put the files themselves in place of these entries (a link that leaves the eval "
                       "dir, a FIFO, a directory named like an artifact), or drop --strict to store the "
                       "run without them"));
  }
  for (const auto& r : refused) {
    warnings.push_back(Warning{r.rel_path, "", "not read: " + r.reason, false});
  }
  return {};
}

// ErrorCode::interrupted when req.abort says to stop at once: returned
// inside a transaction, it rolls the transaction back (Transaction's
// destructor), so nothing of the path is stored.
Result<void> check_abort(const IngestRequest& req)
{
  if (req.abort && req.abort()) {
    return fail(make_error(ErrorCode::interrupted, "interrupted: the run in progress was rolled back")
                    .with_hint("nothing of this run is stored; ingest it again to store it"));
  }
  return {};
}

// Read the files not read yet (nor loaded ahead). A file that is no longer
// what the listing saw (a link or another file swapped in since) is not
// read: it leaves `files` (and `ahead`, kept in step) and joins `changed`,
// with a warning (an error with --strict).
Result<void> load_files(std::vector<FileData>& files, std::vector<std::optional<FileAhead>>* ahead,
                        const IngestRequest& req, std::vector<RefusedEntry>& changed, PathReport& rep)
{
  std::vector<RefusedEntry> now;
  std::vector<bool> drop(files.size(), false);
  for (std::size_t i = 0; i < files.size(); ++i) {
    FileData& f = files[i];
    if (!f.sha256.empty()) {
      continue;
    }
    std::optional<std::string> why;
    RFDB_TRY_ASSIGN(why, load_file(f, req.max_file_size));
    if (why) {
      now.push_back(RefusedEntry{f.rel_path, std::move(*why)});
      drop[i] = true;
    }
  }
  if (now.empty()) {
    return {};
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (drop[i]) {
      continue;
    }
    if (kept != i) {
      files[kept] = std::move(files[i]);
      if (ahead != nullptr && i < ahead->size()) {
        (*ahead)[kept] = std::move((*ahead)[i]);
      }
    }
    ++kept;
  }
  files.resize(kept);
  if (ahead != nullptr && ahead->size() > kept) {
    ahead->resize(kept);
  }
  RFDB_TRY(refuse_entries(now, req.strict, rep.warnings));
  changed.insert(changed.end(), now.begin(), now.end());
  return {};
}

// A run's --tag results in its report, "key=value (added)", in --tag order.
void record_tags(const std::vector<domain::Tag>& tags, const std::vector<store::TagChange>& changes,
                 PathReport& rep)
{
  rep.tagged.clear();
  for (std::size_t i = 0; i < tags.size() && i < changes.size(); ++i) {
    rep.tagged.push_back(tags[i].key + "=" + tags[i].value + " (" + store::to_string(changes[i]) + ")");
  }
}

Result<void> ingest_run_files_once(Prepared& p, const std::string& run_id, const std::string& dir_basename,
                                   const std::string& eval_dir, std::vector<FileData>& files,
                                   std::vector<std::optional<FileAhead>>* ahead, const IngestRequest& req,
                                   std::vector<RefusedEntry>& changed, PathReport& rep)
{
  p.read_files = false;
  p.tags_written = false;
  // Files an earlier try found changed (and dropped): warned again, as the
  // report starts over.
  RFDB_TRY(refuse_entries(changed, req.strict, rep.warnings));
  // Decide "unchanged" from the stat before reading anything: one query
  // for the run's stored stats, and no write lock.
  StoredStats stored_stats;
  RFDB_TRY_ASSIGN(stored_stats, stored_stats_of(p, run_id));
  if (req.rehash == Rehash::no && unchanged_by_stat(files, stored_stats)) {
    std::optional<std::int64_t> derived_by;
    RFDB_TRY_ASSIGN(derived_by, p.writer.derived_by(run_id));
    if (derived_by && *derived_by >= k_derivation_version) {
      rep.unchanged_files = static_cast<int>(files.size());
      rep.status = "unchanged";
      return {};
    }
  }
  p.read_files = true;
  RFDB_TRY(load_files(files, ahead, req, changed, rep));
  if (!eval_dir.empty() && std::none_of(files.begin(), files.end(), [](const FileData& f) {
        return domain::is(f.kind.kind, domain::Artifact::env_report);
      })) {
    return fail(make_error(ErrorCode::invalid_input,
                           "env_report.json (the run's identity) changed between listing and reading")
                    .with_hint("ingest the run again once its files stay put"));
  }
  // A file already stored with this content was validated when it was
  // stored: only new content is parsed, and a run with none is unchanged
  // without taking the write lock (re-ingest costs reading and hashing).
  // Content an older version holds (a file reverted on disk) is parsed again,
  // so its warnings are shown as when it was first stored, and that version
  // becomes current again. A run that stores no file yet has nothing to look
  // up.
  bool stores_files = !stored_stats.empty();
  if (!stores_files) {
    RFDB_TRY_ASSIGN(stores_files, p.sources.run_stores_files(run_id));
  }
  std::vector<const FileData*> fresh; // new or reverted; not copied: a file's content can be megabytes
  std::vector<std::pair<std::int64_t, const FileData*>> touched; // current content, other stat
  Repairs repairs; // current content whose stored copy fails verification
  for (const auto& f : files) {
    std::optional<store::StoredVersion> stored;
    if (stores_files) {
      RFDB_TRY_ASSIGN(stored, p.sources.find(run_id, f.rel_path, f.sha256));
    }
    if (!stored || !stored->current) {
      fresh.push_back(&f);
    } else {
      const auto it = stored_stats.find(f.rel_path);
      if (it != stored_stats.end() && !same_stat(f, it->second)) {
        touched.emplace_back(stored->source_id, &f);
      }
      RFDB_TRY(verify_current(p, stored->source_id, f, repairs));
    }
  }
  // Rows written by older derivation rules are re-derived even when no file
  // changed (an upgraded database keeps no attempts counted the old way).
  std::optional<std::int64_t> derived_by;
  RFDB_TRY_ASSIGN(derived_by, p.writer.derived_by(run_id));
  const bool stale = derived_by && *derived_by < k_derivation_version;
  if (fresh.empty() && !files.empty() && !stale) {
    rep.unchanged_files = static_cast<int>(files.size());
    rep.status = repairs.empty() ? "unchanged" : "repaired";
    return record_stats(p, touched, repairs, req, rep);
  }
  if (stale) {
    rep.warnings.push_back(Warning{dir_basename, "",
                                   "rows written by an older rfdb: re-derived from the stored files by the "
                                   "current rules",
                                   true});
  }
  ParsedFiles parsed;
  RFDB_TRY(prevalidate(fresh, files, ahead, rep.warnings, parsed));
  RFDB_TRY(check_abort(req));
  if (!run_date_from_dir_name(run_id) && !run_date_from_dir_name(dir_basename)) {
    rep.warnings.push_back(Warning{dir_basename, "",
                                   "no _YYYYmmdd_HHMMSS_ date in the run id or dir name: "
                                   "the run has no date, so rfdb priors leaves its attempts out",
                                   false});
  }
  auto tx_result = p.db.begin_immediate();
  if (!tx_result) {
    return fail(std::move(tx_result).error());
  }
  store::Transaction& tx = *tx_result;
  store::RunWriter& writer = p.writer;
  // Asked again under the write lock: another ingest may have stored the run since.
  bool stored_now = true;
  RFDB_TRY_ASSIGN(stored_now, p.sources.run_stores_files(run_id));
  // The run row must exist before its sources reference it.
  RunRow placeholder;
  placeholder.run_id = run_id;
  RFDB_TRY(writer.upsert_run(placeholder, eval_dir, req.now));
  RFDB_TRY(store_sources(p, run_id, files, ahead, req.now, !stored_now, parsed, rep));
  RFDB_TRY(check_abort(req));
  if (rep.new_files.empty() && !stale) {
    // Another writer stored this content meanwhile: nothing to derive, and
    // the placeholder run row must not be committed.
    rep.status = repairs.empty() ? "unchanged" : "repaired";
    tx.rollback();
    return record_stats(p, {}, repairs, req, rep);
  }
  RFDB_TRY(restore_damaged(p, repairs, req.now, rep));
  std::vector<StoredSource> sources;
  RFDB_TRY_ASSIGN(sources, load_sources(p, run_id, parsed));
  DerivedRun derived;
  RFDB_TRY_ASSIGN(derived, derive_run(run_id, dir_basename, sources, &parsed));
  rep.warnings.insert(rep.warnings.end(), derived.warnings.begin(), derived.warnings.end());
  if (req.strict == Strict::yes) {
    for (const auto& w : derived.warnings) {
      if (!w.note) { // the transaction rolls back: nothing is written
        return fail(
            make_error(ErrorCode::invalid_input,
                       fmt::format("--strict: {}{}: {}", w.file, w.pointer.empty() ? "" : " " + w.pointer,
                                   w.message))
                .with_hint("fix the file, or ingest without --strict to store the run with the warning"));
      }
    }
  }
  RFDB_TRY(check_copy(p, derived, req, dir_basename, rep));
  RFDB_TRY(writer.upsert_run(derived.run, eval_dir, req.now));
  RFDB_TRY(writer.clear_derived(run_id));
  store::WriteCounts counts;
  RFDB_TRY_ASSIGN(counts, writer.write_rows(run_id, derived.bench, derived.rounds, derived.docs,
                                            attempt_rows(derived.attempts)));
  RFDB_TRY(writer.write_stack(run_id, derived.stack));
  RFDB_TRY(writer.set_derived_by(run_id, k_derivation_version));
  if (!req.tags.empty()) { // user metadata: no derived row depends on it
    std::vector<store::TagChange> changes;
    RFDB_TRY_ASSIGN(changes, store::write_run_tags(p.db, run_id, req.tags, req.now));
    record_tags(req.tags, changes, rep);
    p.tags_written = true;
  }
  rep.kernels = counts.kernels;
  rep.verdicts = counts.verdicts;
  rep.verdicts_superseded = counts.verdicts_superseded;
  rep.attempts = counts.attempts;
  rep.status = rep.unchanged_files > 0 || !rep.superseded_files.empty() ? "updated" : "added";
  if (req.dry_run == DryRun::yes) {
    tx.rollback();
    return {};
  }
  RFDB_TRY(check_abort(req)); // the last moment a stop leaves the run out
  return tx.commit();
}

// One run in one transaction. On PostgreSQL a concurrent writer may roll it
// back (ErrorCode::retry): the whole run is ingested again from the report
// as it was, and then sees the other writer's rows (a copy, or unchanged).
Result<void> ingest_run_files(Prepared& p, const std::string& run_id, const std::string& dir_basename,
                              const std::string& eval_dir, std::vector<FileData>& files,
                              const IngestRequest& req, PathReport& rep,
                              std::vector<std::optional<FileAhead>>* ahead = nullptr)
{
  const PathReport before = rep;
  std::vector<RefusedEntry> changed; // files found changed since listed, dropped from `files`
  RFDB_TRY(store::with_retry([&] {
    rep = before;
    return ingest_run_files_once(p, run_id, dir_basename, eval_dir, files, ahead, req, changed, rep);
  }));
  if (p.tags_written || req.tags.empty() || req.dry_run == DryRun::yes) {
    return {};
  }
  // An unchanged run wrote nothing: its tags go in a transaction of their own.
  std::vector<store::TagChange> changes;
  RFDB_TRY_ASSIGN(changes, store::tag_run(p.db, run_id, req.tags, req.now));
  record_tags(req.tags, changes, rep);
  return {};
}

// Why `id` cannot name a run, or nullopt: run ids become directory names
// (`rfdb export --raw`) and appear in JSON and tables, so they must be
// well-formed UTF-8 without a path separator, control character or `.`/`..`.
std::optional<std::string> run_id_problem(std::string_view id)
{
  if (util::find_invalid_utf8(id)) {
    return "is not valid UTF-8";
  }
  if (id == "." || id == "..") {
    return "is a relative directory name";
  }
  if (id.find('/') != std::string_view::npos || id.find('\\') != std::string_view::npos) {
    return "holds a path separator";
  }
  if (std::any_of(id.begin(), id.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20U || u == 0x7FU;
      })) {
    return "holds a control character";
  }
  return std::nullopt;
}

// Rejects an unusable run id (see run_id_problem) or a path that is not
// valid UTF-8; rep's path and target are made printable then.
bool refuse_names(PathReport& rep, const std::vector<FileData>* files)
{
  if (const auto why = run_id_problem(rep.target)) {
    rep.error = make_error(ErrorCode::invalid_input,
                           fmt::format("run id '{}' {}", util::escape_for_display(rep.target), *why))
                    .with_hint("rename the eval dir, or give --run RUN_ID");
  } else if (util::find_invalid_utf8(rep.path)) {
    rep.error = make_error(ErrorCode::invalid_input,
                           fmt::format("path '{}' is not valid UTF-8", util::escape_for_display(rep.path)))
                    .with_hint("rename it: rfdb stores paths as UTF-8 text");
  } else if (files != nullptr) {
    for (const auto& f : *files) {
      if (util::find_invalid_utf8(f.rel_path)) {
        rep.error = make_error(ErrorCode::invalid_input, fmt::format("file name '{}' is not valid UTF-8",
                                                                     util::escape_for_display(f.rel_path)))
                        .with_hint("rename it: rfdb stores paths as UTF-8 text");
        break;
      }
    }
  }
  if (!rep.error) {
    return false;
  }
  rep.target = util::escape_for_display(rep.target);
  rep.path = util::escape_for_display(rep.path);
  return true;
}

PathReport ingest_eval_dir(Prepared& p, const fs::path& dir, const IngestRequest& req,
                           ListingPrefetcher* prefetch)
{
  PathReport rep;
  rep.path = dir.string();
  rep.kind = "run";
  const std::string basename = directory_name(dir);
  rep.target = req.run_id.value_or(basename);
  if (rep.target.empty()) {
    rep.error = make_error(ErrorCode::usage, "cannot tell the run id of " + dir.string())
                    .with_hint("pass the eval dir by name, or give --run RUN_ID");
    return rep;
  }
  if (refuse_names(rep, nullptr)) {
    return rep;
  }
  std::optional<PrefetchedDir> listed;
  if (prefetch != nullptr) {
    listed = prefetch->take(rep.path, req.max_file_size);
  }
  std::vector<std::optional<FileAhead>> ahead; // the files as loaded ahead, if they were
  if (listed) {
    ahead = std::move(listed->files);
  }
  auto contents = listed ? std::move(listed->listing) : list_eval_dir(dir, req.max_file_size);
  if (!contents) {
    rep.error = contents.error();
    return rep;
  }
  auto& files = contents->files;
  if (refuse_names(rep, &files)) {
    return rep;
  }
  if (auto r = refuse_entries(contents->refused, req.strict, rep.warnings); !r) {
    rep.error = r.error();
  } else if (std::none_of(files.begin(), files.end(), [](const FileData& f) {
               return domain::is(f.kind.kind, domain::Artifact::env_report);
             })) {
    rep.error = make_error(ErrorCode::invalid_input,
                           "missing env_report.json (the run's identity: model, gfx, backend)")
                    .with_hint("is this an e2e_workflow eval dir? ingest single artifacts with --run RUN_ID");
  } else if (auto r2 = ingest_run_files(p, rep.target, basename, rep.path, files, req, rep, &ahead); !r2) {
    rep.error = r2.error();
  }
  return rep;
}

// Lists any file: ingest_artifact classifies the named file by its path.
std::optional<ArtifactKind> any_artifact(std::string_view /*rel_path*/)
{
  return ArtifactKind{};
}

PathReport ingest_artifact(Prepared& p, const fs::path& file, const IngestRequest& req)
{
  PathReport rep;
  rep.path = file.string();
  rep.kind = "run";
  rep.target = req.run_id.value_or("");
  const std::string rel = relative_artifact_path(file);
  auto kind = classify_artifact(rel);
  if (!kind) {
    rep.error =
        make_error(ErrorCode::invalid_input, "not an artifact rfdb reads: " + rel)
            .with_hint("pass an eval dir, a known artifact (docs/artifacts.md), a cards dir or a playbook");
    return rep;
  }
  if (!req.run_id || req.run_id->empty()) {
    rep.error = make_error(ErrorCode::usage, "a single artifact needs --run RUN_ID (a non-empty run id)");
    return rep;
  }
  if (refuse_names(rep, nullptr)) {
    return rep;
  }
  // Listed and read as an eval dir's artifact is (walk_entry, load_file:
  // race-free, no link followed after the check), under the rule for a
  // named knowledge file: a link that leaves the directory it is named in
  // is refused unless --follow-links.
  WalkRules rules;
  rules.classify = &any_artifact;
  rules.noun = "directory it is named in";
  rules.links = req.follow_links == FollowLinks::yes ? WalkRules::Links::any : WalkRules::Links::inside;
  rules.link_hint = "; --follow-links reads it";
  rules.refuse_dirs_named_like_files = false;
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  auto listed = walk_entry(parent, file.filename().string(), rules, req.max_file_size);
  if (!listed) {
    rep.error = listed.error();
    return rep;
  }
  std::optional<std::string> refused;
  if (!listed->refused.empty()) {
    refused = listed->refused.front().reason;
  } else if (listed->files.size() != 1) {
    refused = "not a regular file";
  } else {
    auto changed = load_file(listed->files.front(), req.max_file_size);
    if (!changed) {
      rep.error = changed.error();
      return rep;
    }
    refused = std::move(*changed);
  }
  if (refused) {
    // The one file named is not read: the path fails, as a named FIFO does.
    rep.error = make_error(ErrorCode::invalid_input, fmt::format("refused to read {}: {}", rel, *refused));
    return rep;
  }
  std::vector<FileData> files = std::move(listed->files);
  FileData& f = files.front();
  f.rel_path = rel;
  f.kind = *kind;
  f.path = file.string();
  if (auto r = ingest_run_files(p, *req.run_id, *req.run_id, "", files, req, rep); !r) {
    rep.error = r.error();
  }
  return rep;
}

} // namespace

std::vector<std::string> expand_paths(const std::vector<std::string>& paths)
{
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    std::vector<std::string> children;
    if (fs::is_directory(p, ec) && !looks_like_eval_dir(p)) {
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.is_directory(ec) && looks_like_eval_dir(e.path())) {
          children.push_back(e.path().string());
        }
      }
    }
    std::sort(children.begin(), children.end());
    if (children.empty()) {
      out.push_back(p);
    } else {
      out.insert(out.end(), children.begin(), children.end());
    }
  }
  return out;
}

IngestReport ingest(store::Database& db, const IngestRequest& req,
                    const std::function<void(const std::string&)>& progress)
{
  Ingester session(db);
  return session.ingest(req, progress);
}

Ingester::Ingester(store::Database& db) : m_db(&db) {}
Ingester::~Ingester() = default;

void Ingester::prefetch(std::vector<std::string> paths, std::uint64_t max_file_size)
{
  m_prefetch.reset(); // stop a previous prefetch first
  m_prefetch = std::make_unique<ListingPrefetcher>(std::move(paths), max_file_size);
}

IngestReport Ingester::ingest(const IngestRequest& req,
                              const std::function<void(const std::string&)>& progress)
{
  IngestReport report;
  store::Database& db = *m_db;
  if (!m_prepared) {
    auto prepared = Prepared::create(db);
    if (!prepared) {
      PathReport rep;
      rep.status = "failed";
      rep.error = prepared.error();
      report.paths.push_back(std::move(rep));
      return report;
    }
    m_prepared = std::move(*prepared);
  }
  Prepared* const prepared = m_prepared.get();
  for (const auto& p : expand_paths(req.paths)) {
    const fs::path path(p);
    std::error_code ec;
    if (progress) {
      progress("ingesting " + p);
    }
    PathReport rep;
    if (fs::is_directory(path, ec)) {
      if (looks_like_eval_dir(path)) {
        prepared->read_files = false;
        rep = ingest_eval_dir(*prepared, path, req, m_prefetch.get());
        if (m_prefetch) { // load the next runs ahead while runs need reading
          m_prefetch->set_load(prepared->read_files, prepared->sources.newest_dictionary());
        }
      } else if (const auto layout = kb::detect_layout(path); layout != kb::Layout::none) {
        rep = kb::ingest_kb(db, path, layout, req); // a GEAK kb store root or kb_artifacts tree (docs/kb.md)
      } else {
        rep = knowledge::ingest_knowledge(db, path, req);
      }
    } else if (fs::is_regular_file(path, ec)) {
      rep = knowledge::is_knowledge_file(path) ? knowledge::ingest_knowledge(db, path, req)
                                               : ingest_artifact(*prepared, path, req);
    } else {
      rep.path = p;
      rep.error = make_error(ErrorCode::io, fs::exists(path, ec)
                                                ? "not a regular file or directory (a FIFO, socket or device)"
                                                : "no such file or directory");
    }
    if (!req.tags.empty() && !rep.error && rep.kind != "run") {
      rep.warnings.push_back(
          Warning{rep.path, "", "--tag applies to runs: this knowledge path is not tagged", false});
    }
    if (rep.error) {
      rep.status = "failed";
      rep.error = rep.error->with_context(rep.path);
      rep.new_files.clear();
      rep.superseded_files.clear();
    }
    report.paths.push_back(std::move(rep));
  }
  return report;
}

} // namespace rfdb::ingest
