// File versions in `sources`: find, put (insert / revive / supersede) and
// read back a run's versions (see sources.hpp).
#include "store/sources.hpp"

#include "rfdb_sql.hpp"

#include "util/hex.hpp"

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
  Statement find, latest, insert, supersede, run_sources, stats, set_stat, run_stored;
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
                                       }));
  return Sources(db, std::make_unique<Statements>(Statements{
                         std::move(all[0]), std::move(all[1]), std::move(all[2]), std::move(all[3]),
                         std::move(all[4]), std::move(all[5]), std::move(all[6]), std::move(all[7])}));
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
      RFDB_TRY_ASSIGN(text, stored_text(m_codec, row));
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
    f.run_id = row.get_opt_text("run_id");
    f.rel_path = row.get_text("rel_path");
    f.kind = row.get_text("kind");
    if (scope.text) {
      RFDB_TRY_ASSIGN(f.text, stored_text(codec, row));
    }
    return fn(f);
  });
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
