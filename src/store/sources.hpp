// File versions in `sources`: the one place that finds, inserts, supersedes
// and revives stored files (eval-dir artifacts and knowledge files alike).
// A path's versions form a chain: the current version has superseded_by
// NULL, every older one points at the version that replaced it.
#pragma once

#include "store/database.hpp"
#include "store/text_codec.hpp"

#include <cstdint>
#include <functional>
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
  std::string_view raw;               // the file's bytes as read; stored zstd-compressed
  std::string ingested_at;            // ISO-8601 UTC
  // The file's mtime when it was read (ns since the epoch; nullopt: not
  // known, e.g. knowledge files); with the size (`bytes`, raw.size()) it lets
  // a re-ingest skip reading an unchanged file.
  std::optional<std::int64_t> mtime_ns;
};

// A stored version with exactly some content.
struct StoredVersion {
  std::int64_t source_id = 0;
  bool current = false; // false: a later version superseded it
};

// What put_source did.
struct PutSource {
  enum class Action { unchanged, inserted, revived };
  Action action = Action::unchanged;
  std::int64_t source_id = 0;                // the version now holding this content
  std::optional<std::int64_t> superseded_id; // the previous current version, now superseded
  // revived: the version's stored copy failed verification and was stored
  // again from the file.
  bool repaired = false;
};

// One stored file version as read back for re-derivation.
struct SourceRow {
  std::int64_t source_id = 0;
  std::string rel_path;
  std::string kind; // the kind stored at ingest
  std::string raw;  // the file's text, decompressed (empty when text_elided)
  bool superseded = false;
  bool text_elided = false; // the caller holds the text: not decompressed
};

// The current version of one of a run's files with its size and the mtime
// recorded when it was read (nullopt: stored before migration 0007). No
// digest: compare content with find().
struct SourceStat {
  std::int64_t source_id = 0;
  std::string rel_path;
  std::int64_t bytes = 0; // the file's size in bytes (uncompressed)
  std::optional<std::int64_t> mtime_ns;
};

// A SHA-256 digest as sources stores it (migration 0010: its 32 bytes) from
// its lower-case hex spelling (64 characters), and back. Text that is not
// hex (never a real digest) is returned unchanged by digest_bytes, so it
// matches no stored digest.
std::string digest_bytes(std::string_view hex);
std::string digest_hex(std::string_view bytes);

// Why a stored frame does not hold the file its row records.
struct FrameProblem {
  std::string what; // "frame" (does not decompress), "size" or "sha256"
  // e.g. "the decompressed text's sha256 is 9fbf06ca1f9c..., the row records 218694f583d8..."
  // (with " (compressed with dictionary N)" for a frame that names one)
  std::string detail;
};

// A stored file version's frame checked against its row.
struct VerifiedText {
  std::string text;                    // the decompressed text; empty unless it decompressed
  std::optional<FrameProblem> problem; // nullopt: `bytes` bytes whose sha256 is the row's
  std::uint32_t dict_id = 0;           // the dictionary the frame names (0: none)
};

// Decompress `frame` (with the dictionary it names, loaded by `codec`) and
// compare its size with `bytes` and its SHA-256 with `sha256` (the row's 32
// bytes). A frame that does not decompress or names a dictionary the
// database does not hold (or cannot load) is a "frame" problem, one whose
// header states another size a "size" problem. Errors: db only (reading a
// dictionary).
Result<VerifiedText> verify_frame(TextCodec& codec, std::string_view frame, std::int64_t bytes,
                                  std::string_view sha256);

// Why a stored rel_path is not a normalized relative path ("empty",
// "absolute", "a control character", "bytes that are not valid UTF-8",
// "a '..' component", "a '.' component", "an empty component"),
// or nullopt. `rfdb export --raw` refuses such a path; `rfdb check` lists it.
std::optional<std::string> rel_path_problem(std::string_view rel_path);

// A stored version's path with its frame verified (Sources::verify_stored).
struct StoredVersionCheck {
  std::string rel_path;
  VerifiedText verified;
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
  // is current already; otherwise insert it (or, when an older version holds
  // this content, a file reverted on disk, make that version current again
  // with the file's mtime, storing its text again from `file` when its
  // stored copy fails verification) and supersede the previous current version. Call
  // inside a write transaction. `ahead`: a frame of file.raw made by
  // TextCodec::compress_ahead with newest_dictionary(), used when that is
  // still the dictionary to compress against (TextCodec::compress).
  // `unstored`: the caller knows that no version of the file's path is stored
  // (run_stores_files was false in this transaction), so nothing is looked up
  // and the file is inserted. Errors: db.
  Result<PutSource> put_source(const SourceFile& file, const FrameAhead* ahead = nullptr,
                               bool unstored = false);

  // True when some version of some file of `run_id` is stored. Errors: db.
  Result<bool> run_stores_files(const std::string& run_id);

  // The stored version `source_id` verified against its row (verify_frame).
  // Errors: db; not_found when there is no such version.
  Result<StoredVersionCheck> verify_stored(std::int64_t source_id);

  // Store `raw` again as the text of version `source_id`, whose sha256 the
  // caller has checked is raw's: for a stored copy verify_stored found
  // damaged. The new frame is verified before it is written. Call inside a
  // write transaction. Errors: db; invalid_input when the new frame does not
  // verify (a dictionary the store cannot use).
  Result<void> restore_text(std::int64_t source_id, std::string_view raw, std::string_view sha256_hex,
                            std::string_view now);

  // The dictionary put_source compressed against last (TextCodec::newest_dictionary).
  [[nodiscard]] std::shared_ptr<const util::zstd::Dictionary> newest_dictionary() const;

  // The current version of each of a run's files with its size and recorded
  // mtime, by rel_path: one query that reads no stored text (nor its
  // overflow pages). Errors: db.
  Result<std::vector<SourceStat>> current_stats(const std::string& run_id);

  // Record the mtime (ns since the epoch) of a stored version (no-op when it
  // is recorded already). Call inside a write transaction. Errors: db.
  Result<void> set_stat(std::int64_t source_id, std::int64_t mtime_ns);

  // Every stored version of a run's files, by rel_path then age, with its
  // text decompressed, except the versions whose source_id is in
  // `elide_text` (sorted), which the caller holds: their rows have
  // text_elided set and an empty raw. Every text read is verified against
  // its row's size and sha256 (verify_frame). Errors: db; invalid_input when
  // a stored text fails verification (naming run, file and source_id, with
  // a hint): derived rows never come from damaged text.
  Result<std::vector<SourceRow>> run_sources(const std::string& run_id,
                                             const std::vector<std::int64_t>& elide_text = {});

private:
  struct Statements;
  Sources(Database& db, std::unique_ptr<Statements> s);
  Database* m_db;
  std::unique_ptr<Statements> m_s;
  TextCodec m_codec;
};

// One current file version with its text, as `rfdb export --raw` writes it.
struct StoredFile {
  std::int64_t source_id = 0;
  std::optional<std::string> run_id; // nullopt for knowledge files
  std::string rel_path;              // as stored: relative to the eval dir (or knowledge dir)
  std::string kind;
  std::string text; // the file's bytes as ingested, decompressed
  // With FileScope::verify: why the stored copy is not the file its row
  // records (text is then empty); nullopt: verified.
  std::optional<FrameProblem> problem;
};

// Which files for_each_current_file visits.
struct FileScope {
  std::optional<std::string> run_id; // nullopt: every run's files and the knowledge files
  bool text = true;                  // false: StoredFile::text stays empty (nothing decompressed)
  // With text: check each file's size and sha256 against its row
  // (verify_frame) and hand a damaged one to `fn` with its problem set
  // instead of failing.
  bool verify = false;
};

// Call `fn` on the current (not superseded) version of each stored file in
// `scope`, one file in memory at a time: by run_id then rel_path, knowledge
// files last. Errors: db; invalid_input for a stored text that does not
// decompress (naming the file; not with FileScope::verify); the first error
// `fn` returns.
Result<void> for_each_current_file(Database& db, const FileScope& scope,
                                   const std::function<Result<void>(const StoredFile&)>& fn);

// The text of the stored file version in the current row of `row`, which
// selects rel_path, bytes and raw_zst (one zstd frame): decompressed by
// `codec` and checked against bytes. Errors (invalid_input, naming the file
// and source_id when selected): a corrupt frame, a missing dictionary or a
// size other than bytes; db.
Result<std::string> stored_text(TextCodec& codec, const Statement& row);

} // namespace rfdb::store
