#include "ingest/knowledge/ingest.hpp"

#include "rfdb_sql.hpp"

#include "ingest/evaldir/files.hpp"
#include "ingest/knowledge/knowledge.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

namespace rfdb::ingest {

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
Warning to_warning(const KnowledgeWarning& w)
{
  return Warning{w.file, w.line > 0 ? fmt::format("line {}", w.line) : "", w.message,
                 w.severity == Severity::note};
}

// The warning for a file that could not be parsed: the parser's error
// context is "file:line" (or just "file"), so the line is lifted out of it
// instead of naming the file twice.
KnowledgeWarning skipped_warning(const std::string& rel_path, const Error& e)
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
  return KnowledgeWarning{Severity::warning, rel_path, line, "skipped: " + rest.describe()};
}

// Why a file of this role is not imported (README, _archive.md, others).
std::string skip_note(const std::string& role)
{
  if (role == "readme") {
    return "README, not a card; skipped";
  }
  if (role == "archive") {
    return "eviction log (_archive.md), not a card; skipped";
  }
  return "not a card, playbook or proposal; skipped";
}

Result<std::vector<KnowledgeFile>> collect(const fs::path& path)
{
  std::vector<KnowledgeFile> out;
  auto add = [&](const fs::path& file, const std::string& rel, const std::string& stored) -> Result<void> {
    std::string role = classify_knowledge_file(rel);
    KnowledgeFile f{stored, role, "", ""};
    if (role != "other") {
      RFDB_TRY_ASSIGN(f.content, read_file(file));
      f.sha256 = sha256_hex(f.content);
    }
    out.push_back(std::move(f));
    return {};
  };
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    const std::string name = path.filename().string();
    // A lone file: its parent "_inbox" still marks a proposal.
    const std::string rel = path.parent_path().filename() == "_inbox" ? "_inbox/" + name : name;
    RFDB_TRY(add(path, rel, rel));
    return out;
  }
  const std::string dir_name = directory_name(path);
  fs::recursive_directory_iterator it(path, ec);
  if (ec) {
    return fail(ErrorCode::io, "cannot list " + path.string() + ": " + ec.message());
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      return fail(ErrorCode::io, "cannot list " + path.string() + ": " + ec.message());
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) {
      continue;
    }
    const std::string rel = fs::relative(it->path(), path, ec).generic_string();
    RFDB_TRY(add(it->path(), rel, dir_name + "/" + rel));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.rel_path < b.rel_path; });
  return out;
}

const char* source_kind_for(const std::string& role)
{
  return role == "card" ? "learned_card" : role == "playbook" ? "legacy_playbook" : "kb_proposal";
}

Result<std::vector<Finding>> parse_file(const KnowledgeFile& f, std::vector<KnowledgeWarning>& warnings)
{
  if (f.role == "card") {
    auto card = parse_card(f.rel_path, f.content, warnings);
    if (!card) {
      return fail(std::move(card).error());
    }
    return std::vector<Finding>{std::move(*card)};
  }
  if (f.role == "playbook") {
    return parse_legacy_playbook(f.rel_path, f.content, warnings);
  }
  return parse_proposal(f.rel_path, f.content, warnings);
}

std::string json_array(const std::vector<std::string>& items)
{
  return nlohmann::json(items).dump();
}

Result<void> insert_findings(store::Statement& s, std::int64_t source_id,
                             const std::vector<Finding>& findings)
{
  auto opt_text = [](const std::string& v) {
    return v.empty() ? std::optional<std::string>() : std::optional(v);
  };
  auto opt_int = [](const std::optional<int>& v) {
    return v ? std::optional<std::int64_t>(*v) : std::optional<std::int64_t>();
  };
  for (const auto& f : findings) {
    s.bind(":source_id", source_id).bind(":origin", f.origin).bind(":identity", f.identity);
    s.bind(":name", opt_text(f.name)).bind(":key_raw", opt_text(f.key_raw));
    s.bind(":kernel_class_raw", opt_text(f.kernel_class_raw)).bind(":op_class", f.op_class);
    s.bind(":gfx", opt_text(f.gfx)).bind(":regime", f.regime).bind(":regime_raw", opt_text(f.regime_raw));
    s.bind(":model", opt_text(f.model))
        .bind(":model_class", opt_text(f.model_class))
        .bind(":type", opt_text(f.type));
    s.bind(":stars", opt_int(f.stars)).bind(":lever", opt_text(f.lever)).bind(":apply", opt_text(f.apply));
    s.bind(":verify", opt_text(f.verify)).bind(":cautions", json_array(f.cautions));
    s.bind(":sources_cited", json_array(f.sources_cited)).bind(":effect", opt_text(f.effect));
    s.bind(":iso_min", f.iso_min).bind(":iso_max", f.iso_max);
    s.bind(":e2e_min_pct", f.e2e_min_pct).bind(":e2e_max_pct", f.e2e_max_pct);
    s.bind(":confirms", opt_int(f.confirms)).bind(":confirms_cited", opt_int(f.confirms_cited));
    s.bind(":confirms_blind", opt_int(f.confirms_blind)).bind(":losses", opt_int(f.losses));
    s.bind(":attempts", opt_int(f.attempts)).bind(":lifecycle", f.lifecycle);
    s.bind(":last_seen", opt_text(f.last_seen)).bind(":text", opt_text(f.text));
    s.bind(":fields", f.fields.empty() ? std::string("{}") : f.fields);
    RFDB_TRY(s.exec());
  }
  return {};
}

struct Parsed {
  const KnowledgeFile* file;
  std::vector<Finding> findings;
  // This exact content is stored already as an older, superseded version
  // (a card reverted on disk): that version becomes current again.
  std::optional<std::int64_t> revive_id;
};

// Store the parsed files inside one transaction.
Result<void> write_knowledge(store::Database& db, const std::vector<Parsed>& parsed, const IngestRequest& req,
                             PathReport& rep)
{
  auto tx_result = db.begin_immediate();
  if (!tx_result) {
    return fail(std::move(tx_result).error());
  }
  store::Statement latest, insert, supersede, supersede_findings, finding;
  RFDB_TRY_ASSIGN(latest, db.prepare(sql::k_source_latest, "source_latest"));
  RFDB_TRY_ASSIGN(insert, db.prepare(sql::k_source_insert, "source_insert"));
  RFDB_TRY_ASSIGN(supersede, db.prepare(sql::k_source_supersede, "source_supersede"));
  RFDB_TRY_ASSIGN(supersede_findings, db.prepare(sql::k_finding_supersede, "finding_supersede"));
  RFDB_TRY_ASSIGN(finding, db.prepare(sql::k_finding_insert, "finding_insert"));
  for (const auto& p : parsed) {
    const auto& f = *p.file;
    latest.bind(":run_id", std::nullopt).bind(":rel_path", f.rel_path);
    bool has_old = false;
    RFDB_TRY_ASSIGN(has_old, latest.step());
    const std::optional<std::int64_t> old_id = has_old ? std::optional(latest.get_int(0)) : std::nullopt;
    latest.reset();
    std::int64_t new_id = 0;
    if (p.revive_id) {
      // The unique (path, sha256) index forbids a second row: point the
      // stored version back to current and re-derive its findings.
      new_id = *p.revive_id;
      supersede.bind(":new_id", std::nullopt).bind(":old_id", new_id);
      RFDB_TRY(supersede.exec());
    } else {
      insert.bind(":run_id", std::nullopt)
          .bind(":rel_path", f.rel_path)
          .bind(":kind", source_kind_for(f.role));
      insert.bind(":variant", f.role).bind(":sha256", f.sha256);
      insert.bind(":bytes", static_cast<std::int64_t>(f.content.size())).bind(":raw", f.content);
      insert.bind(":ingested_at", req.now);
      RFDB_TRY(insert.exec());
      new_id = db.last_insert_rowid();
    }
    if (old_id) {
      supersede.bind(":new_id", new_id).bind(":old_id", *old_id);
      RFDB_TRY(supersede.exec());
      supersede_findings.bind(":source_id", *old_id);
      RFDB_TRY(supersede_findings.exec());
      rep.superseded_files.push_back(f.rel_path);
    }
    rep.new_files.push_back(f.rel_path);
    RFDB_TRY(insert_findings(finding, new_id, p.findings));
    rep.findings += static_cast<int>(p.findings.size());
  }
  if (req.dry_run == DryRun::yes) {
    tx_result->rollback();
    return {};
  }
  return tx_result->commit();
}

// How this exact content is stored: not at all, as the current version, or
// as an older version that a later one superseded.
struct Stored {
  bool current = false;
  std::optional<std::int64_t> superseded_id;
};

Result<Stored> already_stored(store::Database& db, const KnowledgeFile& f)
{
  store::Statement find;
  RFDB_TRY_ASSIGN(find, db.prepare(sql::k_source_find, "source_find"));
  find.bind(":run_id", std::nullopt).bind(":rel_path", f.rel_path).bind(":sha256", f.sha256);
  bool found = false;
  RFDB_TRY_ASSIGN(found, find.step());
  if (!found) {
    return Stored{};
  }
  if (!find.get_opt_int(1)) {
    return Stored{true, std::nullopt};
  }
  return Stored{false, find.get_int(0)};
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
  auto files = collect(path);
  if (!files) {
    rep.error = files.error();
    return rep;
  }
  std::vector<KnowledgeWarning> kw;
  std::vector<Parsed> parsed;
  std::vector<std::string> card_names;
  const KnowledgeFile* index = nullptr;
  for (const auto& f : *files) {
    if (f.role == "card") {
      card_names.push_back(f.rel_path);
    }
    if (f.role == "index") {
      index = &f;
    }
    if (f.role != "card" && f.role != "playbook" && f.role != "proposal") {
      ++rep.skipped_files;
      if (f.role != "index") {
        kw.push_back(KnowledgeWarning{Severity::note, f.rel_path, 0, skip_note(f.role)});
      }
      continue;
    }
    auto stored = already_stored(db, f);
    if (!stored) {
      rep.error = stored.error();
      return rep;
    }
    if (stored->current) {
      ++rep.unchanged_files;
      continue;
    }
    auto findings = parse_file(f, kw);
    if (!findings) {
      // A malformed file is skipped; the rest import (--strict fails below).
      kw.push_back(skipped_warning(f.rel_path, findings.error()));
      ++rep.skipped_files;
      continue;
    }
    parsed.push_back(Parsed{&f, std::move(*findings), stored->superseded_id});
  }
  if (index != nullptr) {
    const auto check = cross_check_index(index->rel_path, index->content, card_names);
    kw.insert(kw.end(), check.warnings.begin(), check.warnings.end());
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
  if (parsed.empty()) {
    rep.status = "unchanged";
    return rep;
  }
  if (auto r = write_knowledge(db, parsed, req, rep); !r) {
    rep.error = r.error();
    return rep;
  }
  rep.status = rep.superseded_files.empty() && rep.unchanged_files == 0 ? "added" : "updated";
  return rep;
}

} // namespace rfdb::ingest
