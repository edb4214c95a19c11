// File versions in `sources`: find, put (insert / revive / supersede) and
// read back a run's versions (see sources.hpp).
#include "store/sources.hpp"

#include "rfdb_sql.hpp"

#include "util/digest.hpp"
#include "util/hex.hpp"
#include "util/utf8.hpp"
#include "util/zstd.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rfdb::store {

std::string digest_bytes(std::string_view hex)
{
  return util::hex_decode(hex).value_or(std::string(hex));
}

std::string digest_hex(std::string_view bytes)
{
  return util::hex_encode(bytes);
}

struct Sources::Statements {
  Statement find, latest, insert, supersede, run_sources, stats, set_stat, run_stored, frame, restore;
};

Sources::Sources(Database& db, std::unique_ptr<Statements> s) : m_db(&db), m_s(std::move(s)), m_codec(db) {}
Sources::Sources(Sources&&) noexcept = default;
Sources& Sources::operator=(Sources&&) noexcept = default;
Sources::~Sources() = default;

Result<Sources> Sources::prepare(Database& db)
{
  std::vector<Statement> all;
  RFDB_TRY_ASSIGN(all, prepare_all(db, {
                                           {sql::k_source_find, "source_find"},
                                           {sql::k_source_latest, "source_latest"},
                                           {sql::k_source_insert, "source_insert"},
                                           {sql::k_source_supersede, "source_supersede"},
                                           {sql::k_run_sources, "run_sources"},
                                           {sql::k_source_stats, "source_stats"},
                                           {sql::k_source_set_stat, "source_set_stat"},
                                           {sql::k_source_run_stored, "source_run_stored"},
                                           {sql::k_source_frame, "source_frame"},
                                           {sql::k_source_restore, "source_restore"},
                                       }));
  return Sources(db, std::make_unique<Statements>(Statements{
                         std::move(all[0]), std::move(all[1]), std::move(all[2]), std::move(all[3]),
                         std::move(all[4]), std::move(all[5]), std::move(all[6]), std::move(all[7]),
                         std::move(all[8]), std::move(all[9])}));
}

Result<std::optional<StoredVersion>> Sources::find(const std::optional<std::string>& run_id,
                                                   const std::string& rel_path, const std::string& sha256)
{
  Statement& s = m_s->find;
  s.bind(":run_id", run_id).bind(":rel_path", rel_path).bind_blob(":sha256", digest_bytes(sha256));
  bool found = false;
  RFDB_TRY_ASSIGN(found, s.step());
  std::optional<StoredVersion> out;
  if (found) {
    out = StoredVersion{s.get_int("source_id"), s.is_null("superseded_by")};
  }
  s.reset();
  return out;
}

std::shared_ptr<const util::zstd::Dictionary> Sources::newest_dictionary() const
{
  return m_codec.newest_dictionary();
}

Result<bool> Sources::run_stores_files(const std::string& run_id)
{
  Statement& s = m_s->run_stored;
  s.bind(":run_id", run_id);
  bool found = false;
  RFDB_TRY(for_each_row(s, [&](const Statement&) { found = true; }));
  return found;
}

Result<PutSource> Sources::put_source(const SourceFile& file, const FrameAhead* ahead, bool unstored)
{
  std::optional<StoredVersion> stored;
  if (!unstored) {
    RFDB_TRY_ASSIGN(stored, find(file.run_id, file.rel_path, file.sha256));
  }
  if (stored && stored->current) {
    if (file.mtime_ns) {
      RFDB_TRY(set_stat(stored->source_id, *file.mtime_ns));
    }
    return PutSource{PutSource::Action::unchanged, stored->source_id, std::nullopt};
  }
  std::optional<std::int64_t> old_id;
  if (!unstored) {
    Statement& latest = m_s->latest;
    latest.bind(":run_id", file.run_id).bind(":rel_path", file.rel_path);
    bool has_old = false;
    RFDB_TRY_ASSIGN(has_old, latest.step());
    if (has_old) {
      old_id = latest.get_int("source_id");
    }
    latest.reset();
  }
  Statement& supersede = m_s->supersede;
  PutSource out;
  if (stored) {
    // The unique (path, sha256) index forbids a second row: point the
    // stored version back to current, with the stat the file has now.
    out.action = PutSource::Action::revived;
    out.source_id = stored->source_id;
    // The version made current again is verified: a damaged stored copy is
    // stored again from the file (whose sha256 is the row's).
    StoredVersionCheck check;
    RFDB_TRY_ASSIGN(check, verify_stored(out.source_id));
    if (check.verified.problem) {
      RFDB_TRY(restore_text(out.source_id, file.raw, file.sha256, file.ingested_at));
      out.repaired = true;
    }
    supersede.bind(":new_id", std::nullopt).bind(":old_id", out.source_id);
    RFDB_TRY(supersede.exec());
    if (file.mtime_ns) {
      RFDB_TRY(set_stat(out.source_id, *file.mtime_ns));
    }
  } else {
    Statement& insert = m_s->insert;
    insert.bind(":run_id", file.run_id).bind(":rel_path", file.rel_path).bind(":kind", file.kind);
    insert.bind(":variant", file.variant).bind_blob(":sha256", digest_bytes(file.sha256));
    std::string frame;
    RFDB_TRY_ASSIGN(frame, m_codec.compress(file.raw, file.ingested_at, ahead));
    insert.bind(":bytes", static_cast<std::int64_t>(file.raw.size())).bind_blob(":raw_zst", frame);
    insert.bind(":ingested_at", file.ingested_at).bind(":mtime_ns", file.mtime_ns);
    RFDB_TRY(insert.exec());
    out.action = PutSource::Action::inserted;
    out.source_id = m_db->last_insert_rowid();
    m_codec.stored(out.source_id);
  }
  if (old_id) {
    supersede.bind(":new_id", out.source_id).bind(":old_id", *old_id);
    RFDB_TRY(supersede.exec());
    out.superseded_id = old_id;
  }
  return out;
}

Result<StoredVersionCheck> Sources::verify_stored(std::int64_t source_id)
{
  Statement& s = m_s->frame;
  s.bind(":source_id", source_id);
  std::optional<StoredVersionCheck> out;
  const auto read = [&](const Statement& row) -> Result<void> {
    StoredVersionCheck c;
    c.rel_path = row.get_text("rel_path");
    RFDB_TRY_ASSIGN(c.verified, verify_frame(m_codec, row.get_blob("raw_zst"), row.get_int("bytes"),
                                             row.get_blob("sha256")));
    out = std::move(c);
    return {};
  };
  RFDB_TRY(for_each_row(s, read));
  if (!out) {
    return fail(ErrorCode::not_found, fmt::format("no stored file version {}", source_id));
  }
  return std::move(*out);
}

Result<void> Sources::restore_text(std::int64_t source_id, std::string_view raw, std::string_view sha256_hex,
                                   std::string_view now)
{
  std::string frame;
  RFDB_TRY_ASSIGN(frame, m_codec.compress(raw, now));
  const auto bytes = static_cast<std::int64_t>(raw.size());
  VerifiedText check;
  RFDB_TRY_ASSIGN(check, verify_frame(m_codec, frame, bytes, digest_bytes(sha256_hex)));
  if (check.problem && check.dict_id != 0) {
    // The dictionary does not round-trip this text (damaged): store the
    // frame without one, which needs no dictionary to read back.
    frame = TextCodec::compress_ahead(raw, nullptr).frame;
    RFDB_TRY_ASSIGN(check, verify_frame(m_codec, frame, bytes, digest_bytes(sha256_hex)));
  }
  if (check.problem) {
    return fail(ErrorCode::invalid_input,
                fmt::format("stored file version {} cannot be stored again: the new frame fails verification "
                            "({})",
                            source_id, check.problem->detail));
  }
  Statement& s = m_s->restore;
  s.bind(":source_id", source_id).bind(":bytes", bytes).bind_blob(":raw_zst", frame);
  RFDB_TRY(s.exec());
  return {};
}

Result<std::vector<SourceStat>> Sources::current_stats(const std::string& run_id)
{
  Statement& s = m_s->stats;
  s.bind(":run_id", run_id);
  std::vector<SourceStat> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    out.push_back(SourceStat{row.get_int("source_id"), row.get_text("rel_path"), row.get_int("bytes"),
                             row.get_opt_int("mtime_ns")});
  }));
  return out;
}

Result<void> Sources::set_stat(std::int64_t source_id, std::int64_t mtime_ns)
{
  Statement& s = m_s->set_stat;
  s.bind(":source_id", source_id).bind(":mtime_ns", mtime_ns);
  RFDB_TRY(s.exec());
  return {};
}

Result<std::vector<SourceRow>> Sources::run_sources(const std::string& run_id,
                                                    const std::vector<std::int64_t>& elide_text)
{
  Statement& s = m_s->run_sources;
  s.bind(":run_id", run_id);
  std::vector<SourceRow> out;
  const auto add = [&](const Statement& row) -> Result<void> {
    const std::int64_t source_id = row.get_int("source_id");
    const bool elided = std::binary_search(elide_text.begin(), elide_text.end(), source_id);
    std::string text;
    if (!elided) {
      VerifiedText v;
      RFDB_TRY_ASSIGN(
          v, verify_frame(m_codec, row.get_blob("raw_zst"), row.get_int("bytes"), row.get_blob("sha256")));
      if (v.problem) {
        const bool superseded = row.get_int("superseded") != 0;
        return fail(
            make_error(
                ErrorCode::invalid_input,
                fmt::format("run {}: the stored copy of {} (source_id {}{}) failed verification ({}: {}); "
                            "the run's rows are not derived from damaged text",
                            run_id, row.get_text("rel_path"), source_id,
                            superseded ? ", a superseded version" : "", v.problem->what, v.problem->detail))
                .with_hint(superseded ? "`rfdb check` lists every damaged stored file; a damaged superseded "
                                        "version cannot be restored from the eval dir (it no longer holds "
                                        "that content)"
                                      : "`rfdb check` lists every damaged stored file; `rfdb ingest --rehash "
                                        "EVAL_DIR` stores a damaged current version again from its file"));
      }
      text = std::move(v.text);
    }
    out.push_back(SourceRow{source_id, row.get_text("rel_path"), row.get_text("kind"), std::move(text),
                            row.get_int("superseded") != 0, elided});
    return {};
  };
  RFDB_TRY(for_each_row(s, add));
  return out;
}

Result<void> for_each_current_file(Database& db, const FileScope& scope,
                                   const std::function<Result<void>(const StoredFile&)>& fn)
{
  auto s = db.prepare(sql::k_sources_current_text, "sources_current_text");
  if (!s) {
    return fail(std::move(s).error());
  }
  s->bind(":all", !scope.run_id.has_value()).bind(":run_id", scope.run_id);
  TextCodec codec(db);
  return for_each_row(*s, [&](const Statement& row) -> Result<void> {
    StoredFile f;
    f.source_id = row.get_int("source_id");
    f.run_id = row.get_opt_text("run_id");
    f.rel_path = row.get_text("rel_path");
    f.kind = row.get_text("kind");
    if (scope.text && scope.verify) {
      VerifiedText v;
      RFDB_TRY_ASSIGN(
          v, verify_frame(codec, row.get_blob("raw_zst"), row.get_int("bytes"), row.get_blob("sha256")));
      f.text = std::move(v.text);
      f.problem = std::move(v.problem);
    } else if (scope.text) {
      RFDB_TRY_ASSIGN(f.text, stored_text(codec, row));
    }
    return fn(f);
  });
}

namespace {

// The first 12 hex digits of a digest (enough to tell two apart in a message).
std::string short_digest(std::string_view bytes)
{
  return digest_hex(bytes).substr(0, 12) + "...";
}

} // namespace

Result<VerifiedText> verify_frame(TextCodec& codec, std::string_view frame, std::int64_t bytes,
                                  std::string_view sha256)
{
  VerifiedText out;
  out.dict_id = util::zstd::frame_dictionary_id(frame);
  const std::string with_dict =
      out.dict_id == 0 ? std::string() : fmt::format(" (compressed with dictionary {})", out.dict_id);
  if (const auto stated = util::zstd::frame_content_size(frame);
      stated && *stated != static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 0))) {
    out.problem = FrameProblem{
        "size", fmt::format("the frame holds {} bytes, the row records {}{}", *stated, bytes, with_dict)};
    return out;
  }
  auto text = codec.decompress(frame, bytes);
  if (!text) {
    const Error& e = text.error();
    if (e.code == ErrorCode::db || e.code == ErrorCode::retry) {
      return fail(e);
    }
    out.problem = FrameProblem{"frame", e.message + with_dict};
    return out;
  }
  if (const std::string digest = util::sha256(*text); digest != sha256) {
    out.problem =
        FrameProblem{"sha256", fmt::format("the decompressed text's sha256 is {}, the row records {}{}",
                                           short_digest(digest), short_digest(sha256), with_dict)};
    return out;
  }
  out.text = std::move(*text);
  return out;
}

std::optional<std::string> rel_path_problem(std::string_view rel_path)
{
  if (rel_path.empty()) {
    return "empty";
  }
  if (rel_path.front() == '/') {
    return "absolute";
  }
  // As ingest refuses such names: no control character, only UTF-8.
  if (std::any_of(rel_path.begin(), rel_path.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return "a control character";
  }
  if (util::find_invalid_utf8(rel_path)) {
    return "bytes that are not valid UTF-8";
  }
  std::optional<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t slash = std::min(rel_path.find('/', pos), rel_path.size());
    const std::string_view part = rel_path.substr(pos, slash - pos);
    if (part == "..") {
      return "a '..' component";
    }
    if (part == "." && !out) {
      out = "a '.' component";
    } else if (part.empty() && !out) {
      out = "an empty component";
    }
    if (slash == rel_path.size()) {
      break;
    }
    pos = slash + 1;
  }
  return out;
}

Result<std::string> stored_text(TextCodec& codec, const Statement& row)
{
  auto text = codec.decompress(row.get_blob("raw_zst"), row.get_int("bytes"));
  if (!text) {
    const int id = row.column_index("source_id");
    return fail(std::move(text).error().with_context(
        id < 0 ? fmt::format("stored {}", row.get_text("rel_path"))
               : fmt::format("stored {} (source_id {})", row.get_text("rel_path"), row.get_int(id))));
  }
  return text;
}

} // namespace rfdb::store
