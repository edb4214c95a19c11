// Stored file text as zstd frames (migration 0008): compressed against the
// database's newest shared dictionary (table zstd_dicts), which is trained
// from the stored files themselves once enough exist, and decompressed with
// whichever dictionary a frame names. Used by sources.cpp (writes and
// re-derivation), attempt_sources.cpp (rfdb check) and `rfdb export --raw`.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rfdb::util::zstd {
class Dictionary;
} // namespace rfdb::util::zstd

namespace rfdb::store {

// When a dictionary is trained: at the first stored file count (source_id)
// of at least k_first_training_files, then each time it has grown
// k_training_growth-fold, so a history whose producers change gets a
// dictionary that knows the newer files.
inline constexpr std::int64_t k_first_training_files = 256;
inline constexpr std::int64_t k_training_growth = 4;
// Up to this many stored files, evenly spaced by source_id, are the samples.
inline constexpr std::int64_t k_training_samples = 1024;
// Dictionary size, bytes (zstd's default).
inline constexpr std::size_t k_dictionary_bytes = 112640;

// A frame compressed ahead of TextCodec::compress, on another thread, with
// the dictionary newest_dictionary() returned then (null: none).
struct FrameAhead {
  std::shared_ptr<const util::zstd::Dictionary> dict;
  std::string frame;
};

class TextCodec {
public:
  explicit TextCodec(Database& db);
  TextCodec(TextCodec&&) noexcept;
  TextCodec& operator=(TextCodec&&) noexcept;
  ~TextCodec();

  // One zstd frame of `text` (any bytes), against the newest dictionary.
  // When the stored files reached the next training point it first trains
  // and stores a new dictionary (trained_at = `now`, ISO-8601 UTC). Call
  // inside the write transaction that stores the frame. Errors: db, or a
  // stored text that does not decompress while sampling (invalid_input).
  // `ahead`, when given, is a frame of `text` made by compress_ahead: it is
  // returned as is when its dictionary is the one this call compresses
  // against (the same loaded dictionary, not merely the same id), so the
  // frame is byte for byte the one this call would make.
  Result<std::string> compress(std::string_view text, std::string_view now,
                               const FrameAhead* ahead = nullptr);

  // The dictionary compress() used last (null: none yet, or no dictionary).
  // Safe to hand to another thread: a loaded dictionary is never modified.
  [[nodiscard]] std::shared_ptr<const util::zstd::Dictionary> newest_dictionary() const;

  // A frame of `text` against `dict` (null: none), as compress() makes it;
  // touches no database, so any thread may call it.
  static FrameAhead compress_ahead(std::string_view text, std::shared_ptr<const util::zstd::Dictionary> dict);

  // The text in `frame`, which must be `bytes` bytes long, decompressed with
  // the dictionary it names (loaded once per codec). Errors (invalid_input):
  // a corrupt frame, a size other than `bytes`, a dictionary the database
  // does not hold; db.
  Result<std::string> decompress(std::string_view frame, std::int64_t bytes);

  // Tell the codec that the caller inserted the stored file `source_id`
  // with the frame compress() returned last: within one write transaction
  // compress() then counts the stored files itself instead of querying them
  // for every file (exact while only this codec's caller inserts files in
  // the transaction, as put_source does).
  void stored(std::int64_t source_id);

private:
  Result<void> load_newest();
  Result<void> train(std::int64_t files, std::string_view now);
  Result<const util::zstd::Dictionary*> dictionary(std::uint32_t id);

  Database* m_db;
  std::optional<Statement> m_state; // dict_state, prepared on the first compress
  bool m_loaded = false;
  std::optional<std::uint32_t> m_newest; // dict_id used to compress
  std::int64_t m_next_training = 0;      // source_id at which to train next
  std::uint64_t m_state_tx = 0;          // the write transaction m_files is of (0: none)
  std::int64_t m_files = 0;              // stored file count (max source_id) in m_state_tx
  std::map<std::uint32_t, std::shared_ptr<const util::zstd::Dictionary>> m_dicts;
};

} // namespace rfdb::store
