#include "ingest/ingest.hpp"

#include "rfdb_sql.hpp"

#include "ingest/derive.hpp"
#include "ingest/files.hpp"
#include "ingest/knowledge_ingest.hpp"
#include "ingest/writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace rfdb::ingest {

namespace fs = std::filesystem;

bool IngestReport::ok() const
{
  return std::none_of(paths.begin(), paths.end(), [](const PathReport& p) { return p.error.has_value(); });
}

namespace {

// Store the files that are new (or new versions); fill the report's lists.
Result<void> store_sources(store::Database& db, const std::string& run_id, const std::vector<FileData>& files,
                           const std::string& now, PathReport& rep)
{
  store::Statement find, latest, insert, supersede;
  RFDB_TRY_ASSIGN(find, db.prepare(sql::k_source_find, "source_find"));
  RFDB_TRY_ASSIGN(latest, db.prepare(sql::k_source_latest, "source_latest"));
  RFDB_TRY_ASSIGN(insert, db.prepare(sql::k_source_insert, "source_insert"));
  RFDB_TRY_ASSIGN(supersede, db.prepare(sql::k_source_supersede, "source_supersede"));
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

Result<std::vector<StoredSource>> load_sources(store::Database& db, const std::string& run_id)
{
  store::Statement s;
  RFDB_TRY_ASSIGN(s, db.prepare(sql::k_run_sources, "run_sources"));
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

// Parse every file up front: bad input fails before the database is touched.
Result<void> prevalidate(const std::vector<FileData>& files, std::vector<Warning>& warnings)
{
  for (const auto& f : files) {
    RFDB_TRY(validate_artifact(f.kind, f.rel_path, f.content, warnings));
  }
  return {};
}

Result<void> ingest_run_files(store::Database& db, const std::string& run_id, const std::string& dir_basename,
                              const std::string& eval_dir, const std::vector<FileData>& files,
                              const IngestRequest& req, PathReport& rep)
{
  RFDB_TRY(prevalidate(files, rep.warnings));
  auto tx_result = db.begin_immediate();
  if (!tx_result) {
    return fail(std::move(tx_result).error());
  }
  store::Transaction& tx = *tx_result;
  auto writer_result = RunWriter::create(db);
  if (!writer_result) {
    return fail(std::move(writer_result).error());
  }
  RunWriter& writer = *writer_result;
  // The run row must exist before its sources reference it.
  RunRow placeholder;
  placeholder.run_id = run_id;
  RFDB_TRY(writer.upsert_run(placeholder, eval_dir, req.now));
  RFDB_TRY(store_sources(db, run_id, files, req.now, rep));
  if (rep.new_files.empty()) {
    rep.status = "unchanged";
    tx.rollback();
    return {};
  }
  std::vector<StoredSource> sources;
  RFDB_TRY_ASSIGN(sources, load_sources(db, run_id));
  DerivedRun derived;
  RFDB_TRY_ASSIGN(derived, derive_run(run_id, dir_basename, sources));
  RFDB_TRY(writer.upsert_run(derived.run, eval_dir, req.now));
  RFDB_TRY(writer.clear_derived(run_id));
  WriteCounts counts;
  RFDB_TRY_ASSIGN(counts, writer.write_derived(derived));
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

PathReport ingest_eval_dir(store::Database& db, const fs::path& dir, const IngestRequest& req)
{
  PathReport rep;
  rep.path = dir.string();
  rep.kind = "run";
  const std::string basename = fs::absolute(dir).lexically_normal().filename().string();
  rep.target = req.run_id.value_or(basename);
  auto files = read_eval_dir(dir);
  if (!files) {
    rep.error = files.error();
  } else if (std::none_of(files->begin(), files->end(),
                          [](const FileData& f) { return f.kind.kind == "env_report"; })) {
    rep.error = make_error(ErrorCode::invalid_input,
                           "missing env_report.json (the run's identity: model, gfx, backend)")
                    .with_hint("is this an e2e_workflow eval dir? ingest single artifacts with --run RUN_ID");
  } else if (auto r = ingest_run_files(db, rep.target, basename, rep.path, *files, req, rep); !r) {
    rep.error = r.error();
  }
  return rep;
}

PathReport ingest_artifact(store::Database& db, const fs::path& file, const IngestRequest& req)
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
  if (!req.run_id) {
    rep.error = make_error(ErrorCode::usage, "a single artifact needs --run RUN_ID");
    return rep;
  }
  auto content = read_file(file);
  if (!content) {
    rep.error = content.error();
    return rep;
  }
  FileData f{rel, *kind, std::move(*content), ""};
  f.sha256 = sha256_hex(f.content);
  if (auto r = ingest_run_files(db, *req.run_id, *req.run_id, "", {f}, req, rep); !r) {
    rep.error = r.error();
  }
  return rep;
}

} // namespace

IngestReport ingest(store::Database& db, const IngestRequest& req,
                    const std::function<void(const std::string&)>& progress)
{
  IngestReport report;
  for (const auto& p : req.paths) {
    const fs::path path(p);
    std::error_code ec;
    if (progress) {
      progress("ingesting " + p);
    }
    PathReport rep;
    if (fs::is_directory(path, ec)) {
      rep = looks_like_eval_dir(path) ? ingest_eval_dir(db, path, req) : ingest_knowledge(db, path, req);
    } else if (fs::is_regular_file(path, ec)) {
      rep = is_knowledge_file(path) ? ingest_knowledge(db, path, req) : ingest_artifact(db, path, req);
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
