#include "ingest/ingest.hpp"

#include "rfdb_sql.hpp"

#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/knowledge/ingest.hpp"
#include "ingest/writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace rfdb::ingest {

namespace fs = std::filesystem;

bool IngestReport::ok() const
{
  return std::none_of(paths.begin(), paths.end(), [](const PathReport& p) { return p.error.has_value(); });
}

namespace {

// Statements prepared once per `ingest` call and reused for every run
// (preparing them per run cost 7–10 % of ingest CPU in tools/bench).
struct Prepared {
  store::Database& db;
  RunWriter writer;
  store::Statement find, latest, insert, supersede, load, copy_candidates, measured, unshared_file,
      file_copies, derived_by, set_derived_by;

  static Result<std::unique_ptr<Prepared>> create(store::Database& db)
  {
    auto writer = RunWriter::create(db);
    if (!writer) {
      return fail(std::move(writer).error());
    }
    auto p = std::make_unique<Prepared>(
        Prepared{db, std::move(*writer), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    RFDB_TRY_ASSIGN(p->derived_by, db.prepare(sql::k_run_derived_by, "run_derived_by"));
    RFDB_TRY_ASSIGN(p->set_derived_by, db.prepare(sql::k_run_set_derived_by, "run_set_derived_by"));
    RFDB_TRY_ASSIGN(p->find, db.prepare(sql::k_source_find, "source_find"));
    RFDB_TRY_ASSIGN(p->latest, db.prepare(sql::k_source_latest, "source_latest"));
    RFDB_TRY_ASSIGN(p->insert, db.prepare(sql::k_source_insert, "source_insert"));
    RFDB_TRY_ASSIGN(p->supersede, db.prepare(sql::k_source_supersede, "source_supersede"));
    RFDB_TRY_ASSIGN(p->load, db.prepare(sql::k_run_sources, "run_sources"));
    RFDB_TRY_ASSIGN(p->copy_candidates, db.prepare(sql::k_run_copy_candidates, "run_copy_candidates"));
    RFDB_TRY_ASSIGN(p->measured, db.prepare(sql::k_run_measured_attempts, "run_measured_attempts"));
    RFDB_TRY_ASSIGN(p->unshared_file, db.prepare(sql::k_run_has_unshared_file, "run_has_unshared_file"));
    RFDB_TRY_ASSIGN(p->file_copies, db.prepare(sql::k_run_file_copies, "run_file_copies"));
    return p;
  }
};

// Store the files that are new (or new versions); fill the report's lists.
Result<void> store_sources(Prepared& p, const std::string& run_id, const std::vector<FileData>& files,
                           const std::string& now, PathReport& rep)
{
  auto& db = p.db;
  auto& find = p.find;
  auto& latest = p.latest;
  auto& insert = p.insert;
  auto& supersede = p.supersede;
  for (const auto& f : files) {
    find.bind(":run_id", run_id).bind(":rel_path", f.rel_path).bind(":sha256", f.sha256);
    bool exists = false;
    RFDB_TRY_ASSIGN(exists, find.step());
    find.reset();
    if (exists) {
      ++rep.unchanged_files;
      continue;
    }
    latest.bind(":run_id", run_id).bind(":rel_path", f.rel_path);
    bool has_old = false;
    RFDB_TRY_ASSIGN(has_old, latest.step());
    const std::optional<std::int64_t> old_id = has_old ? std::optional(latest.get_int(0)) : std::nullopt;
    latest.reset();
    insert.bind(":run_id", run_id).bind(":rel_path", f.rel_path).bind(":kind", f.kind.kind);
    insert.bind(":variant", std::nullopt).bind(":sha256", f.sha256);
    insert.bind(":bytes", static_cast<std::int64_t>(f.content.size())).bind(":raw", f.content);
    insert.bind(":ingested_at", now);
    RFDB_TRY(insert.exec());
    const std::int64_t new_id = db.last_insert_rowid();
    rep.new_files.push_back(f.rel_path);
    if (old_id) {
      supersede.bind(":new_id", new_id).bind(":old_id", *old_id);
      RFDB_TRY(supersede.exec());
      rep.superseded_files.push_back(f.rel_path);
    }
  }
  return {};
}

Result<std::vector<StoredSource>> load_sources(Prepared& p, const std::string& run_id)
{
  store::Statement& s = p.load;
  s.bind(":run_id", run_id);
  std::vector<StoredSource> out;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    StoredSource src;
    src.source_id = s.get_int(0);
    src.rel_path = s.get_text(1);
    auto kind = classify_artifact(src.rel_path);
    src.kind = kind.value_or(ArtifactKind{s.get_text(2), "", "", ""});
    src.raw = s.get_text(3);
    src.superseded = s.get_int(4) != 0;
    out.push_back(std::move(src));
  }
  return out;
}

// One measured attempt as the copy check compares it: short_name, isolated
// speedup in 1e-4 steps, e2e delta in 1e-3 steps (the precision producers
// print; a re-serialized copy may differ below it).
using MeasuredAttempt = std::tuple<std::string, std::optional<std::int64_t>, std::optional<std::int64_t>>;

MeasuredAttempt measured_attempt(std::string short_name, std::optional<double> iso, std::optional<double> e2e)
{
  const auto steps = [](std::optional<double> v, double scale) {
    return v ? std::optional(std::llround(*v * scale)) : std::nullopt;
  };
  return {std::move(short_name), steps(iso, 1e4), steps(e2e, 1e3)};
}

// The run's measured attempts, sorted: a multiset in canonical order.
std::vector<MeasuredAttempt> measured_attempts(const DerivedRun& run)
{
  std::vector<MeasuredAttempt> out;
  for (const auto& a : run.attempts) {
    const auto& r = a.record;
    if (r.isolated_speedup || r.e2e_delta_pct) {
      out.push_back(measured_attempt(r.short_name, r.isolated_speedup, r.e2e_delta_pct));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Bind the identity columns the copy queries filter on.
void bind_identity(store::Statement& s, const RunRow& run)
{
  const EnvReport& env = run.env;
  s.bind(":run_id", run.run_id).bind(":model", env.model).bind(":gfx", env.gfx).bind(":backend", env.backend);
  s.bind(":isl", env.isl).bind(":osl", env.osl).bind(":conc", env.conc);
}

// Every row's first column as text.
Result<std::vector<std::string>> first_column(store::Statement& s)
{
  std::vector<std::string> out;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      return out;
    }
    out.push_back(s.get_text(0));
  }
}

// A stored run's measured attempts, sorted.
Result<std::vector<MeasuredAttempt>> stored_measured_attempts(Prepared& p, const std::string& run_id)
{
  store::Statement& s = p.measured;
  s.bind(":run_id", run_id);
  std::vector<MeasuredAttempt> out;
  for (;;) {
    bool row = false;
    RFDB_TRY_ASSIGN(row, s.step());
    if (!row) {
      break;
    }
    out.push_back(measured_attempt(s.get_text(0), s.get_opt_double(1), s.get_opt_double(2)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The stored run a run copies, and what makes it a copy.
struct CopyOf {
  std::string run_id;
  std::string why;
};

// The stored run `derived` copies, if any (ingest.hpp). Runs inside the
// write transaction, after the run's files are stored and derived, so a
// concurrent copy that committed first is seen. SQL narrows the candidates
// to runs with the identity and one matching attempt (or every file), so
// the cost does not grow with the number of runs sharing an identity.
Result<std::optional<CopyOf>> find_copy(Prepared& p, const DerivedRun& derived)
{
  const auto mine = measured_attempts(derived);
  if (!mine.empty()) {
    // Narrow by one attempt; its rounded values are within the query's tolerance.
    const auto& [short_name, iso, e2e] = mine.front();
    const auto unscale = [](std::optional<std::int64_t> steps, double scale) {
      return steps ? std::optional(static_cast<double>(*steps) / scale) : std::nullopt;
    };
    store::Statement& s = p.copy_candidates;
    bind_identity(s, derived.run);
    s.bind(":short_name", short_name);
    s.bind(":isolated_speedup", unscale(iso, 1e4)).bind(":e2e_delta_pct", unscale(e2e, 1e3));
    std::vector<std::string> candidates;
    RFDB_TRY_ASSIGN(candidates, first_column(s));
    for (auto& other : candidates) {
      std::vector<MeasuredAttempt> theirs;
      RFDB_TRY_ASSIGN(theirs, stored_measured_attempts(p, other));
      if (theirs == mine) {
        return CopyOf{std::move(other), fmt::format("the same {} measured attempt{}", mine.size(),
                                                    mine.size() == 1 ? "" : "s")};
      }
    }
  }
  // Usually some file is stored nowhere else; only then is the join over
  // every shared file (linear in the runs sharing it) worth running.
  p.unshared_file.bind(":run_id", derived.run.run_id);
  std::vector<std::string> unshared;
  RFDB_TRY_ASSIGN(unshared, first_column(p.unshared_file));
  if (!unshared.empty()) {
    return std::optional<CopyOf>();
  }
  bind_identity(p.file_copies, derived.run);
  std::vector<std::string> file_copies;
  RFDB_TRY_ASSIGN(file_copies, first_column(p.file_copies));
  if (!file_copies.empty()) {
    return CopyOf{std::move(file_copies.front()), "every file already stored there"};
  }
  return std::optional<CopyOf>();
}

// Refuse a copy; with --allow-copy store it with a note naming the original.
Result<void> check_copy(Prepared& p, const DerivedRun& derived, const IngestRequest& req,
                        const std::string& dir_basename, PathReport& rep)
{
  std::optional<CopyOf> copy;
  RFDB_TRY_ASSIGN(copy, find_copy(p, derived));
  if (!copy) {
    return {};
  }
  const std::string what = fmt::format(
      "a copy of stored run '{}' (same model, gfx, backend and workload, and {})", copy->run_id, copy->why);
  if (req.allow_copy == AllowCopy::yes) {
    rep.warnings.push_back(Warning{dir_basename, "", what + ": stored anyway (--allow-copy)", true});
    return {};
  }
  return fail(make_error(ErrorCode::invalid_input, what + ": its evidence would count twice")
                  .with_hint(fmt::format("if it is the same run, ingest it as --run {}; to store '{}' as a "
                                         "separate run anyway, pass --allow-copy",
                                         copy->run_id, derived.run.run_id)));
}

// Parse every file up front: bad input fails before the database is touched.
// A key repeated with equal values, or outside the measured fields, is a
// warning (parse_json_text refuses the rest).
Result<void> prevalidate(const std::vector<const FileData*>& files, std::vector<Warning>& warnings)
{
  for (const FileData* file : files) {
    const FileData& f = *file;
    RFDB_TRY(validate_artifact(f.kind, f.rel_path, f.content, warnings));
    std::vector<DuplicateKey> duplicates;
    RFDB_TRY_ASSIGN(duplicates, find_duplicate_keys(f.content).map_error(
                                    [&](Error e) { return std::move(e).with_context(f.rel_path); }));
    for (const auto& d : duplicates) {
      const std::string message =
          d.measured ? fmt::format("duplicate key '{}' repeats the same value {}", d.key, d.last_value)
                     : fmt::format("duplicate key '{}': the last value is kept", d.key);
      warnings.push_back(Warning{f.rel_path, d.pointer, message, false});
    }
  }
  return {};
}

Result<void> ingest_run_files(Prepared& p, const std::string& run_id, const std::string& dir_basename,
                              const std::string& eval_dir, const std::vector<FileData>& files,
                              const IngestRequest& req, PathReport& rep)
{
  // A file already stored with this content was validated when it was
  // stored: only new content is parsed, and a run with none is unchanged
  // without taking the write lock (re-ingest costs reading and hashing).
  std::vector<const FileData*> fresh; // not copied: a file's content can be megabytes
  for (const auto& f : files) {
    p.find.bind(":run_id", run_id).bind(":rel_path", f.rel_path).bind(":sha256", f.sha256);
    bool stored = false;
    RFDB_TRY_ASSIGN(stored, p.find.step());
    p.find.reset();
    if (!stored) {
      fresh.push_back(&f);
    }
  }
  // Rows written by older derivation rules are re-derived even when no file
  // changed (an upgraded database keeps no attempts counted the old way).
  p.derived_by.bind(":run_id", run_id);
  bool known = false;
  RFDB_TRY_ASSIGN(known, p.derived_by.step());
  const bool stale = known && p.derived_by.get_int(0) < k_derivation_version;
  p.derived_by.reset();
  if (fresh.empty() && !files.empty() && !stale) {
    rep.unchanged_files = static_cast<int>(files.size());
    rep.status = "unchanged";
    return {};
  }
  if (stale) {
    rep.warnings.push_back(Warning{dir_basename, "",
                                   "rows written by an older rfdb: re-derived from the stored files by the "
                                   "current rules",
                                   true});
  }
  RFDB_TRY(prevalidate(fresh, rep.warnings));
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
  RunWriter& writer = p.writer;
  // The run row must exist before its sources reference it.
  RunRow placeholder;
  placeholder.run_id = run_id;
  RFDB_TRY(writer.upsert_run(placeholder, eval_dir, req.now));
  RFDB_TRY(store_sources(p, run_id, files, req.now, rep));
  if (rep.new_files.empty() && !stale) {
    rep.status = "unchanged";
    tx.rollback();
    return {};
  }
  std::vector<StoredSource> sources;
  RFDB_TRY_ASSIGN(sources, load_sources(p, run_id));
  DerivedRun derived;
  RFDB_TRY_ASSIGN(derived, derive_run(run_id, dir_basename, sources));
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
  WriteCounts counts;
  RFDB_TRY_ASSIGN(counts, writer.write_derived(derived));
  p.set_derived_by.bind(":run_id", run_id).bind(":derived_by", k_derivation_version);
  RFDB_TRY(p.set_derived_by.exec());
  rep.kernels = counts.kernels;
  rep.verdicts = counts.verdicts;
  rep.verdicts_superseded = counts.verdicts_superseded;
  rep.attempts = counts.attempts;
  rep.status = rep.unchanged_files > 0 || !rep.superseded_files.empty() ? "updated" : "added";
  if (req.dry_run == DryRun::yes) {
    tx.rollback();
    return {};
  }
  return tx.commit();
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
            .with_hint("replace links that leave the eval dir by the files themselves, or drop --strict "
                       "to store the run without them"));
  }
  for (const auto& r : refused) {
    warnings.push_back(Warning{r.rel_path, "", "not read: " + r.reason, false});
  }
  return {};
}

PathReport ingest_eval_dir(Prepared& p, const fs::path& dir, const IngestRequest& req)
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
  auto contents = read_eval_dir(dir, req.max_file_size);
  if (!contents) {
    rep.error = contents.error();
    return rep;
  }
  const auto& files = contents->files;
  if (auto r = refuse_entries(contents->refused, req.strict, rep.warnings); !r) {
    rep.error = r.error();
  } else if (std::none_of(files.begin(), files.end(),
                          [](const FileData& f) { return f.kind.kind == "env_report"; })) {
    rep.error = make_error(ErrorCode::invalid_input,
                           "missing env_report.json (the run's identity: model, gfx, backend)")
                    .with_hint("is this an e2e_workflow eval dir? ingest single artifacts with --run RUN_ID");
  } else if (auto r2 = ingest_run_files(p, rep.target, basename, rep.path, files, req, rep); !r2) {
    rep.error = r2.error();
  }
  return rep;
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
            .with_hint("pass an eval dir, a known artifact (FORMATS.md §1), a cards dir or a playbook");
    return rep;
  }
  if (!req.run_id || req.run_id->empty()) {
    rep.error = make_error(ErrorCode::usage, "a single artifact needs --run RUN_ID (a non-empty run id)");
    return rep;
  }
  auto content = read_file(file, req.max_file_size);
  if (!content) {
    rep.error = content.error();
    return rep;
  }
  FileData f{rel, *kind, std::move(*content), ""};
  f.sha256 = sha256_hex(f.content);
  if (auto r = ingest_run_files(p, *req.run_id, *req.run_id, "", {f}, req, rep); !r) {
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
  IngestReport report;
  auto prepared = Prepared::create(db);
  if (!prepared) {
    PathReport rep;
    rep.status = "failed";
    rep.error = prepared.error();
    report.paths.push_back(std::move(rep));
    return report;
  }
  for (const auto& p : expand_paths(req.paths)) {
    const fs::path path(p);
    std::error_code ec;
    if (progress) {
      progress("ingesting " + p);
    }
    PathReport rep;
    if (fs::is_directory(path, ec)) {
      rep = looks_like_eval_dir(path) ? ingest_eval_dir(**prepared, path, req)
                                      : ingest_knowledge(db, path, req);
    } else if (fs::is_regular_file(path, ec)) {
      rep =
          is_knowledge_file(path) ? ingest_knowledge(db, path, req) : ingest_artifact(**prepared, path, req);
    } else {
      rep.path = p;
      rep.error = make_error(ErrorCode::io, "no such file or directory");
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
