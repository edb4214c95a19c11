// File versions in `sources`: the one place that finds, inserts, supersedes
// and revives stored files (eval-dir artifacts and knowledge files alike).
// A path's versions form a chain: the current version has superseded_by
// NULL, every older one points at the version that replaced it.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// One file version to store. `run_id` is nullopt for knowledge files (not
// owned by a run); `raw` must outlive the put_source call.
struct SourceFile {
  std::optional<std::string> run_id;
  std::string rel_path;
  std::string kind;                   // artifact kind, or learned_card | legacy_playbook | kb_proposal
  std::optional<std::string> variant; // knowledge role; nullopt for artifacts
  std::string sha256;                 // hex digest of raw
  std::string_view raw;
  std::string ingested_at; // ISO-8601 UTC
  // The file's stat when it was read (nullopt: not known, e.g. knowledge
  // files); recorded so a re-ingest can skip reading an unchanged file.
  std::optional<std::int64_t> size;
  std::optional<std::int64_t> mtime_ns;
};

// A stored version with exactly some content.
struct StoredVersion {
  std::int64_t source_id = 0;
  bool current = false; // false: a later version superseded it
};

// What put_source does with content that is stored as an older version.
enum class Reverted {
  unchanged, // leave the chain as it is (eval dirs: the file is not new)
  revive,    // make that version current again (knowledge: a card reverted on disk)
};

// What put_source did.
struct PutSource {
  enum class Action { unchanged, inserted, revived };
  Action action = Action::unchanged;
  std::int64_t source_id = 0;                // the version now holding this content
  std::optional<std::int64_t> superseded_id; // the previous current version, now superseded
};

// One stored file version as read back for re-derivation.
struct SourceRow {
  std::int64_t source_id = 0;
  std::string rel_path;
  std::string kind; // the kind stored at ingest
  std::string raw;
  bool superseded = false;
};

// The current version of one of a run's files with the stat recorded when
// it was read (nullopt: stored before migration 0007).
struct SourceStat {
  std::int64_t source_id = 0;
  std::string rel_path;
  std::string sha256;
  std::optional<std::int64_t> size;
  std::optional<std::int64_t> mtime_ns;
};

// The sources statements, prepared once and reused across files.
class Sources {
public:
  // Prepare every statement. Errors: db.
  static Result<Sources> prepare(Database& db);
  Sources(Sources&&) noexcept;
  Sources& operator=(Sources&&) noexcept;
  ~Sources();

  // The stored version of (run_id, rel_path) with this sha256, if any.
  // Errors: db.
  Result<std::optional<StoredVersion>> find(const std::optional<std::string>& run_id,
                                            const std::string& rel_path, const std::string& sha256);

  // Make `file` the current version of its path: unchanged when this content
  // is current already; otherwise insert it (or, with Reverted::revive,
  // re-point the older version holding it to current) and supersede the
  // previous current version. Call inside a write transaction. Errors: db.
  Result<PutSource> put_source(const SourceFile& file, Reverted reverted);

  // The current version of each of a run's files with its recorded stat, by
  // rel_path: one query, no raw text read. Errors: db.
  Result<std::vector<SourceStat>> current_stats(const std::string& run_id);

  // Record the stat of a stored version (no-op when it is recorded already).
  // Call inside a write transaction. Errors: db.
  Result<void> set_stat(std::int64_t source_id, std::int64_t size, std::int64_t mtime_ns);

  // Every stored version of a run's files, by rel_path then age. Errors: db.
  Result<std::vector<SourceRow>> run_sources(const std::string& run_id);

private:
  struct Statements;
  Sources(Database& db, std::unique_ptr<Statements> s);
  Database* m_db;
  std::unique_ptr<Statements> m_s;
};

} // namespace rfdb::store
