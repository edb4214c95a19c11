// GEAK kb plane import: one store transaction per kb store root or kb_artifacts tree
// (see kb.hpp; docs/kb.md).
#include "domain/kb_identity.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/kb/kb.hpp"
#include "ingest/kb/parse.hpp"
#include "store/kb_records.hpp"
#include "store/sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace rfdb::ingest::kb {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(std::string_view s, char sep)
{
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) {
      return out;
    }
    start = pos + 1;
  }
}

bool hidden(const std::vector<std::string>& parts)
{
  return std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.starts_with("."); });
}

bool is_gfx(const std::string& s)
{
  static const std::regex k_gfx(R"(gfx[0-9a-z]+)", std::regex::icase);
  return std::regex_match(s, k_gfx);
}

// The files a kb record is read from; everything else (report.md, launch.sh …) is not listed.
std::optional<ArtifactKind> kb_file(std::string_view rel_path)
{
  const auto parts = split(rel_path, '/');
  const std::string& name = parts.back();
  if (hidden(parts)) {
    return std::nullopt;
  }
  const auto in = [&](std::string_view dir) {
    return std::find(parts.begin(), parts.end(), dir) != parts.end();
  };
  if (name == "knowledge.json" || name == "champion.json" || name == "meta.yaml" || name == "meta.json" ||
      name == "patch.diff" || (parts.size() >= 2 && parts[parts.size() - 2] == "artifact") ||
      (in("files") && in("artifact")) ||
      (parts.size() >= 3 && parts[parts.size() - 3] == "files" && parts[parts.size() - 2] == "kernels" &&
       name.ends_with(".patch"))) {
    return ArtifactKind{};
  }
  return std::nullopt;
}

struct File {
  std::string rel; // relative to the walked root
  std::string stored;
  std::string content;
  std::string sha256;
  std::string kind; // kb_knowledge | kb_champion | kb_meta | kb_patch | kb_kernel_patch | kb_artifact
};

// One record: its files (the first is the record file) and what parse_record needs.
struct Group {
  RecordContext ctx;
  std::vector<const File*> files;
  const File* record = nullptr;
  bool yaml = false;
};

struct Champion {
  const File* file = nullptr;
  std::string canonical_id;
};

ingest::Warning warn(const std::string& file, const std::string& message, bool note = false)
{
  return ingest::Warning{file, "", message, note};
}

// True for a session `rfdb export --kb` wrote: its id starts "rfdb-" and its document names
// rfdb as `producer` (kernel lane) or `value.measured_by` (both lanes). Importing it back would
// count the runs' own evidence twice.
bool is_rfdb_export(const json& doc, const std::string& session_id)
{
  const std::string producer = domain::kb::k_rfdb_producer;
  if (!session_id.starts_with(producer + "-") || !doc.is_object()) {
    return false;
  }
  const auto says_rfdb = [&](const json& obj, const char* key) {
    return obj.is_object() && obj.contains(key) && obj.at(key).is_string() &&
           obj.at(key).get<std::string>() == producer;
  };
  return says_rfdb(doc, "producer") || (doc.contains("value") && says_rfdb(doc.at("value"), "measured_by"));
}

// The digest of a record's files: SHA-256 over "path NUL sha256 LF" per file, sorted by path.
std::string files_digest(std::vector<const File*> files)
{
  std::sort(files.begin(), files.end(), [](const File* a, const File* b) { return a->stored < b->stored; });
  std::string all;
  for (const File* f : files) {
    all += f->stored + '\0' + f->sha256 + '\n';
  }
  return sha256_hex(all);
}

Result<json> parse_document(const File& f, bool yaml)
{
  if (yaml) {
    return parse_yaml_text(f.content);
  }
  return parse_json_text(f.content);
}

struct Plan {
  std::vector<std::pair<store::KbRecord, const Group*>> records;
  std::vector<std::pair<store::KbChampion, const File*>> champions;
};

Result<void> write_plan(store::Database& db, store::Sources& sources, const Plan& plan,
                        const IngestRequest& req, PathReport& rep)
{
  auto tx = db.begin_immediate();
  if (!tx) {
    return fail(std::move(tx).error());
  }
  auto writer = store::KbWriter::create(db);
  if (!writer) {
    return fail(std::move(writer).error());
  }
  bool changed = false;
  std::set<std::string> seen_files;
  const auto put = [&](const File& f) -> Result<std::int64_t> {
    store::PutSource p;
    RFDB_TRY_ASSIGN(p, sources.put_source(store::SourceFile{std::nullopt, f.stored, f.kind, std::nullopt,
                                                            f.sha256, f.content, req.now, std::nullopt}));
    if (seen_files.insert(f.stored).second) {
      if (p.action == store::PutSource::Action::unchanged) {
        ++rep.unchanged_files;
      } else {
        changed = true;
        rep.new_files.push_back(f.stored);
        if (p.superseded_id) {
          rep.superseded_files.push_back(f.stored);
        }
      }
    }
    return p.source_id;
  };
  for (const auto& [record, group] : plan.records) {
    std::int64_t source_id = 0;
    for (const File* f : group->files) {
      std::int64_t id = 0;
      RFDB_TRY_ASSIGN(id, put(*f));
      if (f == group->record) {
        source_id = id;
      }
    }
    std::optional<store::KbCurrent> current;
    RFDB_TRY_ASSIGN(current, writer->current(record.lane, record.record_key));
    if (current && current->digest == record.files_sha256) {
      continue; // stored from these very files
    }
    if (current) {
      RFDB_TRY(writer->supersede(current->id));
    }
    store::KbRecord r = record;
    r.source_id = source_id;
    r.ingested_at = req.now;
    RFDB_TRY(writer->insert(r).map([](std::int64_t) {}));
    changed = true;
    ++rep.findings;
  }
  for (const auto& [champion, file] : plan.champions) {
    std::int64_t source_id = 0;
    RFDB_TRY_ASSIGN(source_id, put(*file));
    std::optional<store::KbCurrent> current;
    RFDB_TRY_ASSIGN(current, writer->current_champion(champion.canonical_id));
    if (current && current->digest == file->sha256) {
      continue;
    }
    if (current) {
      RFDB_TRY(writer->supersede_champion(current->id));
    }
    store::KbChampion c = champion;
    c.source_id = source_id;
    RFDB_TRY(writer->insert_champion(c));
    changed = true;
  }
  if (req.dry_run == DryRun::yes || !changed) {
    tx->rollback();
    return {};
  }
  if (req.abort && req.abort()) {
    return fail(make_error(ErrorCode::interrupted, "interrupted: the kb path was rolled back")
                    .with_hint("nothing of it is stored; ingest it again to store it"));
  }
  return tx->commit();
}

} // namespace

Layout detect_layout(const fs::path& dir)
{
  std::error_code ec;
  if (fs::is_directory(dir / "geak" / "kernel", ec) || fs::is_directory(dir / "geak" / "e2e", ec)) {
    return Layout::store;
  }
  // <gfx>/<kernel_class>/<slug>/<exp_id>/meta.yaml|meta.json
  for (const auto& gfx : fs::directory_iterator(dir, ec)) {
    if (!gfx.is_directory(ec) || gfx.is_symlink(ec) || !is_gfx(gfx.path().filename().string())) {
      continue;
    }
    for (fs::recursive_directory_iterator it(gfx.path(), ec), end; !ec && it != end; it.increment(ec)) {
      if (it.depth() >= 3) {
        it.disable_recursion_pending();
        const auto name = it->path().filename();
        if (it.depth() == 3 && (name == "meta.yaml" || name == "meta.json")) {
          return Layout::artifacts;
        }
      }
    }
  }
  return Layout::none;
}

PathReport ingest_kb(store::Database& db, const fs::path& path, Layout layout, const IngestRequest& req)
{
  PathReport rep;
  rep.path = path.string();
  rep.kind = "knowledge";
  rep.target = "kb";
  WalkRules rules;
  rules.classify = &kb_file;
  rules.size_limit_when_listing = false;
  rules.refuse_dirs_named_like_files = false;
  rules.noun = layout == Layout::store ? "kb store" : "kb_artifacts tree";
  rules.links = req.follow_links == FollowLinks::yes ? WalkRules::Links::any : WalkRules::Links::none;
  rules.link_hint = "; --follow-links reads it";
  auto listed = walk_dir(path, rules, req.max_file_size);
  if (!listed) {
    rep.error = listed.error();
    return rep;
  }
  const std::string prefix = directory_name(path) + "/";
  std::vector<ingest::Warning> warnings;
  for (const auto& r : listed->refused) {
    warnings.push_back(warn(prefix + r.rel_path, "not read: " + r.reason));
  }
  // Read every listed file (a few per record).
  std::vector<File> files;
  files.reserve(listed->files.size());
  for (auto& fd : listed->files) {
    auto changed = load_file(fd, req.max_file_size);
    if (!changed) {
      warnings.push_back(warn(prefix + fd.rel_path, "not read: " + changed.error().describe()));
      continue;
    }
    if (*changed) {
      warnings.push_back(warn(prefix + fd.rel_path, "not read: " + **changed));
      continue;
    }
    File f{fd.rel_path, prefix + fd.rel_path, std::move(fd.content), std::move(fd.sha256), ""};
    files.push_back(std::move(f));
  }
  std::map<std::pair<std::string, std::string>, Group> groups; // (lane, key)
  std::vector<Champion> champions;
  if (layout == Layout::store) {
    // <identity…>/sessions/<sid>/knowledge.json, <identity…>/sessions/<sid>/files/…,
    // <identity…>/champion.json
    std::map<std::string, std::vector<const File*>> session_files; // "<identity>/sessions/<sid>" → files/
    for (auto& f : files) {
      const auto parts = split(f.rel, '/');
      const auto s = std::find(parts.begin(), parts.end(), "sessions");
      if (parts.size() >= 4 && parts.back() == "champion.json" && s == parts.end() && parts[0] == "geak") {
        f.kind = "kb_champion";
        champions.push_back(Champion{&f, fmt::format("{}", fmt::join(parts.begin(), parts.end() - 1, ":"))});
        continue;
      }
      if (s == parts.end() || s + 1 == parts.end() || parts[0] != "geak" || parts.size() < 3 ||
          (parts[1] != "kernel" && parts[1] != "e2e")) {
        continue; // not a session's file
      }
      const std::vector<std::string> identity(parts.begin(), s);
      const std::string& sid = *(s + 1);
      const auto rest = std::vector<std::string>(s + 2, parts.end());
      if (rest.size() == 1 && rest[0] == "knowledge.json") {
        f.kind = "kb_knowledge";
        if (!valid_session_id(sid)) {
          warnings.push_back(warn(f.stored, fmt::format("skipped: session id '{}' is not a GEAK session id "
                                                        "([A-Za-z0-9][A-Za-z0-9._-]{{0,127}})",
                                                        sid)));
          ++rep.skipped_files;
          continue;
        }
        Group& g = groups[{parts[1], sid}];
        g.ctx.lane = parts[1];
        g.ctx.record_key = sid;
        // The most specific rung (most segments; then the first by path) is the record.
        if (g.record == nullptr || identity.size() > g.ctx.identity.size() ||
            (identity.size() == g.ctx.identity.size() && f.stored < g.record->stored)) {
          g.record = &f;
          g.ctx.identity = identity;
        }
        g.files.push_back(&f);
      } else if (rest.size() >= 2 && rest[0] == "files") {
        // files/patch.diff, files/artifact/<name>, and an e2e session's per-kernel patches
        // files/kernels/<name>.patch (value.accepted_kernels[].patch); nothing else.
        const bool artifact = rest.size() >= 3 && rest[1] == "artifact";
        const bool kernel_patch =
            parts[1] == "e2e" && rest.size() == 3 && rest[1] == "kernels" && rest[2].ends_with(".patch");
        if (!artifact && !kernel_patch && !(rest.size() == 2 && rest[1] == "patch.diff")) {
          continue;
        }
        f.kind = artifact ? "kb_artifact" : kernel_patch ? "kb_kernel_patch" : "kb_patch";
        session_files[fmt::format("{}", fmt::join(parts.begin(), s + 2, "/"))].push_back(&f);
      }
    }
    for (auto& [key, g] : groups) {
      std::set<std::string> rungs;
      for (const File* f : g.files) {
        rungs.insert(f->rel.substr(0, f->rel.find("/sessions/")));
      }
      g.ctx.rungs = static_cast<int>(rungs.size());
      const std::string dir =
          g.record->rel.substr(0, g.record->rel.size() - std::string("/knowledge.json").size());
      for (const File* f : session_files[dir]) {
        g.files.push_back(f);
        if (f->kind == "kb_patch") {
          g.ctx.patch = f->content;
        } else if (f->kind == "kb_kernel_patch") {
          g.ctx.kernel_patches.emplace_back("kernels/" + f->rel.substr(f->rel.rfind('/') + 1), f->content);
        } else {
          g.ctx.artifacts.emplace_back(f->rel.substr(f->rel.rfind('/') + 1), f->content);
        }
      }
    }
  } else {
    // <gfx>/<kernel_class>/<slug>/<exp_id>/{meta.yaml|meta.json, patch.diff, artifact/<name>}
    std::map<std::string, std::vector<File*>> by_dir;
    for (auto& f : files) {
      const auto parts = split(f.rel, '/');
      if (parts.size() < 5 || !is_gfx(parts[0])) {
        continue;
      }
      by_dir[fmt::format("{}", fmt::join(parts.begin(), parts.begin() + 4, "/"))].push_back(&f);
    }
    for (auto& [dir, dir_files] : by_dir) {
      const auto parts = split(dir, '/');
      File* meta = nullptr;
      bool yaml = false;
      for (File* f : dir_files) {
        const auto name = f->rel.substr(dir.size() + 1);
        if (name == "meta.yaml") {
          meta = f;
          yaml = true;
        } else if (name == "meta.json" && meta == nullptr) {
          meta = f;
        }
      }
      if (meta == nullptr) {
        continue;
      }
      meta->kind = "kb_meta";
      const std::string& exp_id = parts[3];
      auto [it, fresh] = groups.try_emplace({"experience", exp_id});
      if (!fresh) {
        warnings.push_back(warn(
            meta->stored, fmt::format("skipped: exp id '{}' is also {}", exp_id, it->second.record->stored)));
        ++rep.skipped_files;
        continue;
      }
      Group& g = it->second;
      g.ctx.lane = "experience";
      g.ctx.record_key = exp_id;
      g.ctx.identity = parts;
      g.record = meta;
      g.yaml = yaml;
      g.files.push_back(meta);
      for (File* f : dir_files) {
        const auto name = f->rel.substr(dir.size() + 1);
        if (name == "patch.diff") {
          f->kind = "kb_patch";
          g.ctx.patch = f->content;
          g.files.push_back(f);
        } else if (name.starts_with("artifact/")) {
          f->kind = "kb_artifact";
          g.ctx.artifacts.emplace_back(name.substr(std::string("artifact/").size()), f->content);
          g.files.push_back(f);
        }
      }
    }
  }
  // Parse every record and champion; a malformed one is skipped with a warning.
  Plan plan;
  for (const auto& [key, g] : groups) {
    auto doc = parse_document(*g.record, g.yaml);
    if (doc && is_rfdb_export(*doc, g.ctx.record_key)) {
      warnings.push_back(warn(
          g.record->stored,
          "skipped: rfdb's own export (rfdb export --kb); its evidence is the runs already stored", true));
      continue;
    }
    std::vector<std::string> field_warnings;
    auto record =
        doc ? parse_record(*doc, g.ctx, &field_warnings) : Result<store::KbRecord>(fail(doc.error()));
    if (!record) {
      warnings.push_back(warn(g.record->stored, "skipped: " + record.error().describe()));
      ++rep.skipped_files;
      continue;
    }
    for (const auto& w : field_warnings) {
      warnings.push_back(warn(g.record->stored, w));
    }
    record->store_path = g.record->stored;
    record->files_sha256 = files_digest(g.files);
    plan.records.emplace_back(std::move(*record), &g);
  }
  for (const auto& c : champions) {
    auto doc = parse_json_text(c.file->content);
    auto champion = doc ? parse_champion(*doc, c.canonical_id) : Result<store::KbChampion>(fail(doc.error()));
    if (!champion) {
      warnings.push_back(warn(c.file->stored, "skipped: " + champion.error().describe()));
      ++rep.skipped_files;
      continue;
    }
    if (champion->session_id.starts_with(std::string(domain::kb::k_rfdb_producer) + "-")) {
      // A pointer to one of rfdb's own exported sessions (skipped above): importing it back
      // would add a champion for evidence the runs already hold.
      warnings.push_back(warn(c.file->stored,
                              "skipped: points to rfdb's own export " + champion->session_id +
                                  " (rfdb export --kb); its evidence is the runs already stored",
                              true));
      continue;
    }
    plan.champions.emplace_back(std::move(*champion), c.file);
  }
  if (plan.records.empty() && plan.champions.empty() && warnings.empty()) {
    warnings.push_back(warn(rep.path, "nothing to read here: no GEAK kb session or experience"));
  }
  rep.warnings = warnings;
  const auto warning_count =
      std::count_if(warnings.begin(), warnings.end(), [](const auto& w) { return !w.note; });
  if (req.strict == Strict::yes && warning_count > 0) {
    rep.error = make_error(ErrorCode::invalid_input,
                           fmt::format("{} warning(s) with --strict; nothing was written", warning_count));
    return rep;
  }
  auto sources = store::Sources::prepare(db);
  if (!sources) {
    rep.error = sources.error();
    return rep;
  }
  const PathReport before = rep;
  if (auto r = store::with_retry([&] {
        rep = before;
        return write_plan(db, *sources, plan, req, rep);
      });
      !r) {
    rep.error = r.error();
    return rep;
  }
  rep.status = rep.new_files.empty() && rep.findings == 0                 ? "unchanged"
               : rep.superseded_files.empty() && rep.unchanged_files == 0 ? "added"
                                                                          : "updated";
  return rep;
}

} // namespace rfdb::ingest::kb
