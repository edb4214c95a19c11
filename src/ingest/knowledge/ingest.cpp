// Importing legacy knowledge (cards, playbook lines, proposals): one store transaction per path.
#include "ingest/knowledge/ingest.hpp"

#include "domain/vocab.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/knowledge/knowledge.hpp"
#include "store/findings_writer.hpp"
#include "store/sources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace rfdb::ingest::knowledge {

namespace fs = std::filesystem;

namespace {

// One knowledge file found under the path.
struct KnowledgeFile {
  std::string rel_path; // stored path: "<dir name>/<relative>" or the file name
  std::string role;     // card | proposal | playbook | index | readme | archive | other
  std::string content;
  std::string sha256;
};

// ingest::Warning has no severity, so a note says so in its message (it
// never fails --strict; see ingest_knowledge).
ingest::Warning to_warning(const Warning& w)
{
  return ingest::Warning{w.file, w.line > 0 ? fmt::format("line {}", w.line) : "", w.message,
                         w.severity == Severity::note};
}

// The warning for a file that could not be parsed: the parser's error
// context is "file:line" (or just "file"), so the line is lifted out of it
// instead of naming the file twice.
Warning skipped_warning(const std::string& rel_path, const Error& e)
{
  int line = 0;
  Error rest = e;
  if (!rest.context.empty() && rest.context.front().starts_with(rel_path)) {
    const std::string_view tail = std::string_view(rest.context.front()).substr(rel_path.size());
    const char* end = tail.data() + tail.size();
    const bool numbered =
        tail.size() > 1 && tail[0] == ':' && std::from_chars(tail.data() + 1, end, line).ptr == end;
    if (tail.empty() || numbered) {
      rest.context.erase(rest.context.begin());
    } else {
      line = 0;
    }
  }
  return Warning{Severity::warning, rel_path, line, "skipped: " + rest.describe()};
}

// Why a file of this role is not imported (README, _archive.md, others).
std::string skip_note(const std::string& role)
{
  if (domain::is(role, domain::KnowledgeRole::readme)) {
    return "README, not a card; skipped";
  }
  if (domain::is(role, domain::KnowledgeRole::archive)) {
    return "eviction log (_archive.md), not a card; skipped";
  }
  return "not a card, playbook or proposal; skipped";
}

// Every file is listed (a file rfdb does not read is counted as skipped).
std::optional<ArtifactKind> any_file(std::string_view /*rel_path*/)
{
  return ArtifactKind{};
}

// The knowledge files under `path` (a directory, or one file), read
// race-free (load_file). Entries not read — symlinks (followed only with
// --follow-links; a named file's link only when it leaves its directory),
// special files, files that changed or vanished between listing and
// reading — are warnings in `warnings`; a file not read anyway (role other)
// that vanished is skipped silently.
Result<std::vector<KnowledgeFile>> collect(const fs::path& path, const IngestRequest& req,
                                           std::vector<Warning>& warnings)
{
  const bool follow = req.follow_links == FollowLinks::yes;
  WalkRules rules;
  rules.classify = &any_file;
  rules.size_limit_when_listing = false; // only cards, playbooks, proposals are read
  rules.refuse_dirs_named_like_files = false;
  rules.link_hint = "; --follow-links reads it";
  std::error_code ec;
  const bool lone = !fs::is_directory(path, ec);
  std::string prefix; // stored path of an entry: prefix + its path relative to the walked dir
  EvalDirContents listed;
  if (lone) {
    // A lone file: its parent "_inbox" still marks a proposal.
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    rules.noun = "directory it is named in";
    rules.links = follow ? WalkRules::Links::any : WalkRules::Links::inside;
    prefix = path.parent_path().filename() == "_inbox" ? "_inbox/" : "";
    RFDB_TRY_ASSIGN(listed, walk_entry(parent, path.filename().string(), rules, req.max_file_size));
  } else {
    rules.noun = "knowledge dir";
    rules.links = follow ? WalkRules::Links::any : WalkRules::Links::none;
    prefix = directory_name(path) + "/";
    RFDB_TRY_ASSIGN(listed, walk_dir(path, rules, req.max_file_size));
  }
  if (lone && !listed.refused.empty()) {
    // The file named on the command line is not read: the path fails, as a
    // named FIFO or a missing file does (a warning alone would report it
    // "unchanged" with exit 0).
    const auto& r = listed.refused.front();
    return fail(make_error(ErrorCode::invalid_input,
                           fmt::format("refused to read {}: {}", prefix + r.rel_path, r.reason)));
  }
  for (const auto& r : listed.refused) {
    if (r.reason == k_vanished_reason &&
        domain::is(classify_knowledge_file(lone ? prefix + r.rel_path : r.rel_path),
                   domain::KnowledgeRole::other)) {
      continue; // a file rfdb does not read (an editor's swap file) gone since it was listed
    }
    warnings.push_back(Warning{Severity::warning, prefix + r.rel_path, 0, "not read: " + r.reason});
  }
  std::vector<KnowledgeFile> out;
  for (auto& file : listed.files) {
    const std::string stored = prefix + file.rel_path;
    std::string role = classify_knowledge_file(lone ? stored : file.rel_path);
    KnowledgeFile f{stored, role, "", ""};
    if (!domain::is(role, domain::KnowledgeRole::other)) {
      std::optional<std::string> changed;
      RFDB_TRY_ASSIGN(changed, load_file(file, req.max_file_size));
      if (changed) {
        warnings.push_back(Warning{Severity::warning, stored, 0, "not read: " + *changed});
        continue;
      }
      f.content = std::move(file.content);
      f.sha256 = std::move(file.sha256);
    }
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.rel_path < b.rel_path; });
  return out;
}

const char* source_kind_for(const std::string& role)
{
  return domain::is(role, domain::KnowledgeRole::card)       ? "learned_card"
         : domain::is(role, domain::KnowledgeRole::playbook) ? "legacy_playbook"
                                                             : "kb_proposal";
}

Result<std::vector<Finding>> parse_file(const KnowledgeFile& f, std::vector<Warning>& warnings)
{
  if (domain::is(f.role, domain::KnowledgeRole::card)) {
    auto card = parse_card(f.rel_path, f.content, warnings);
    if (!card) {
      return fail(std::move(card).error());
    }
    return std::vector<Finding>{std::move(*card)};
  }
  if (domain::is(f.role, domain::KnowledgeRole::playbook)) {
    return parse_legacy_playbook(f.rel_path, f.content, warnings);
  }
  return parse_proposal(f.rel_path, f.content, warnings);
}

struct Parsed {
  const KnowledgeFile* file;
  std::vector<Finding> findings;
  // The current stored version whose findings an older rfdb wrote without a
  // classification: they are read anew in place (the file is unchanged).
  std::optional<std::int64_t> reclassify;
};

// Store the parsed files inside one transaction. A content stored before as
// an older, superseded version (a card reverted on disk) makes that version
// current again and re-derives its findings.
// Current versions (source_id) whose stored copy failed verification, with
// the file read now (whose sha256 the row records).
using Repairs = std::vector<std::pair<std::int64_t, const KnowledgeFile*>>;

// Store each queued file's text again over its damaged copy. Call inside
// a write transaction. Errors: db.
Result<void> restore_damaged(store::Sources& sources, const Repairs& repairs, const IngestRequest& req)
{
  for (const auto& [source_id, f] : repairs) {
    RFDB_TRY(sources.restore_text(source_id, f->content, f->sha256, req.now));
  }
  return {};
}

Result<void> write_knowledge(store::Database& db, store::Sources& sources, const std::vector<Parsed>& parsed,
                             const Repairs& repairs, const IngestRequest& req, PathReport& rep)
{
  auto tx_result = db.begin_immediate();
  if (!tx_result) {
    return fail(std::move(tx_result).error());
  }
  RFDB_TRY(restore_damaged(sources, repairs, req));
  auto writer = store::FindingsWriter::create(db);
  if (!writer) {
    return fail(std::move(writer).error());
  }
  for (const auto& p : parsed) {
    const auto& f = *p.file;
    if (p.reclassify) {
      RFDB_TRY(writer->clear(*p.reclassify));
      RFDB_TRY(writer->insert(*p.reclassify, p.findings));
      rep.findings += static_cast<int>(p.findings.size());
      ++rep.unchanged_files;
      continue;
    }
    store::PutSource put;
    RFDB_TRY_ASSIGN(
        put, sources.put_source(store::SourceFile{std::nullopt, f.rel_path, source_kind_for(f.role), f.role,
                                                  f.sha256, f.content, req.now, std::nullopt}));
    if (put.action == store::PutSource::Action::unchanged) { // another writer stored it meanwhile
      ++rep.unchanged_files;
      continue;
    }
    if (put.superseded_id) {
      RFDB_TRY(writer->supersede(*put.superseded_id));
      rep.superseded_files.push_back(f.rel_path);
    }
    if (put.action == store::PutSource::Action::revived) {
      RFDB_TRY(writer->clear(put.source_id));
    }
    rep.new_files.push_back(f.rel_path);
    RFDB_TRY(writer->insert(put.source_id, p.findings));
    rep.findings += static_cast<int>(p.findings.size());
  }
  if (req.dry_run == DryRun::yes) {
    tx_result->rollback();
    return {};
  }
  if (req.abort && req.abort()) { // a stop at once: the transaction rolls back
    return fail(make_error(ErrorCode::interrupted, "interrupted: the knowledge path was rolled back")
                    .with_hint("nothing of it is stored; ingest it again to store it"));
  }
  return tx_result->commit();
}

} // namespace

bool is_knowledge_file(const fs::path& file)
{
  const std::string name = file.filename().string();
  return name.ends_with(".md") || name.ends_with(".json.drained") ||
         (file.parent_path().filename() == "_inbox" && name.ends_with(".json"));
}

PathReport ingest_knowledge(store::Database& db, const fs::path& path, const IngestRequest& req)
{
  PathReport rep;
  rep.path = path.string();
  rep.kind = "knowledge";
  rep.target = "knowledge";
  std::vector<Warning> kw;
  auto files = collect(path, req, kw);
  if (!files) {
    rep.error = files.error();
    return rep;
  }
  auto sources = store::Sources::prepare(db);
  if (!sources) {
    rep.error = sources.error();
    return rep;
  }
  auto findings_writer = store::FindingsWriter::create(db);
  if (!findings_writer) {
    rep.error = findings_writer.error();
    return rep;
  }
  std::vector<Parsed> parsed;
  Repairs repairs;
  std::vector<ingest::Warning> repaired; // not input warnings: --strict does not count them
  std::vector<std::string> card_names;
  const KnowledgeFile* index = nullptr;
  for (const auto& f : *files) {
    if (domain::is(f.role, domain::KnowledgeRole::card)) {
      card_names.push_back(f.rel_path);
    }
    if (domain::is(f.role, domain::KnowledgeRole::index)) {
      index = &f;
    }
    if (!domain::is(f.role, domain::KnowledgeRole::card) &&
        !domain::is(f.role, domain::KnowledgeRole::playbook) &&
        !domain::is(f.role, domain::KnowledgeRole::proposal)) {
      ++rep.skipped_files;
      if (!domain::is(f.role, domain::KnowledgeRole::index)) {
        kw.push_back(Warning{Severity::note, f.rel_path, 0, skip_note(f.role)});
      }
      continue;
    }
    auto stored = sources->find(std::nullopt, f.rel_path, f.sha256);
    if (!stored) {
      rep.error = stored.error();
      return rep;
    }
    std::optional<std::int64_t> reclassify;
    if (*stored && (*stored)->current) {
      // Read anyway: its stored copy is trusted only once verified.
      auto check = sources->verify_stored((*stored)->source_id);
      if (!check) {
        rep.error = check.error();
        return rep;
      }
      if (const auto& problem = check->verified.problem) {
        repairs.emplace_back((*stored)->source_id, &f);
        repaired.push_back(ingest::Warning{
            f.rel_path, "",
            fmt::format("the stored copy failed verification ({}: {}): stored again from this file",
                        problem->what, problem->detail),
            false});
      }
      auto older = findings_writer->unclassified((*stored)->source_id);
      if (!older) {
        rep.error = older.error();
        return rep;
      }
      if (!*older) {
        ++rep.unchanged_files;
        continue;
      }
      reclassify = (*stored)->source_id;
    }
    auto findings = parse_file(f, kw);
    if (!findings) {
      // A malformed file is skipped; the rest import (--strict fails below).
      kw.push_back(skipped_warning(f.rel_path, findings.error()));
      ++rep.skipped_files;
      continue;
    }
    parsed.push_back(Parsed{&f, std::move(*findings), reclassify});
  }
  if (index != nullptr) {
    const auto check = cross_check_index(index->rel_path, index->content, card_names);
    kw.insert(kw.end(), check.warnings.begin(), check.warnings.end());
  }
  if (files->empty() && kw.empty()) {
    // A mistyped or empty directory: say so rather than report it unchanged
    // in silence (an empty cards dir of a new team is not an error).
    kw.push_back(Warning{Severity::warning, rep.path, 0,
                         "nothing to read here: no eval dir (env_report.json), learned card (*.md), "
                         "backend_playbook.md or _inbox proposal"});
  }
  for (const auto& w : kw) {
    rep.warnings.push_back(to_warning(w));
  }
  const auto warning_count =
      std::count_if(kw.begin(), kw.end(), [](const auto& w) { return w.severity == Severity::warning; });
  if (req.strict == Strict::yes && warning_count > 0) {
    rep.error = make_error(ErrorCode::invalid_input,
                           fmt::format("{} warning(s) with --strict; nothing was written", warning_count));
    return rep;
  }
  rep.warnings.insert(rep.warnings.end(), repaired.begin(), repaired.end());
  if (parsed.empty() && !repairs.empty()) {
    const PathReport before = rep;
    if (auto r = store::with_retry([&]() -> Result<void> {
          rep = before;
          auto tx = db.begin_immediate();
          if (!tx) {
            return fail(std::move(tx).error());
          }
          RFDB_TRY(restore_damaged(*sources, repairs, req));
          if (req.dry_run == DryRun::yes) {
            tx->rollback();
            return {};
          }
          return tx->commit();
        });
        !r) {
      rep.error = r.error();
      return rep;
    }
    rep.status = "repaired";
    return rep;
  }
  if (parsed.empty()) {
    rep.status = "unchanged";
    return rep;
  }
  // On PostgreSQL a concurrent writer may roll the transaction back
  // (ErrorCode::retry): write again from the report as it was.
  const PathReport before = rep;
  if (auto r = store::with_retry([&] {
        rep = before;
        return write_knowledge(db, *sources, parsed, repairs, req, rep);
      });
      !r) {
    rep.error = r.error();
    return rep;
  }
  rep.status = rep.superseded_files.empty() && rep.unchanged_files == 0 ? "added" : "updated";
  return rep;
}

} // namespace rfdb::ingest::knowledge
