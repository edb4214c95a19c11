// zstd (libzstd) compression of stored text: one self-describing frame per
// value, with its uncompressed size (and dictionary id, if any) in the frame
// header; dictionaries trained from samples for many small similar files.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::util::zstd {

// The level rfdb stores file text at. With the trained dictionaries, level 5
// (greedy matching) stores tools/bench's 1000-run corpus (80.7 MB of
// artifacts) in 9.6 MB where level 3 needs 11.1 MB, for about 0.25 s more
// CPU over the whole ingest; level 6 would save 0.5 MB more for 0.3 s more.
inline constexpr int k_default_level = 5;

// Decompressed sizes above this are refused as corrupt (4 GiB): rfdb never
// stores a file that large, and a damaged header must not allocate it.
inline constexpr std::uint64_t k_max_decompressed_bytes = std::uint64_t{1} << 32U;

// One zstd frame holding `text` (any bytes: BOM, CRLF and invalid UTF-8 are
// kept as they are), compressed at `level` (1–19; negative levels are
// faster, 0 means zstd's default 3). The frame records the uncompressed
// size, so decompress() allocates once. Never fails for valid levels; an
// out-of-range level is clamped by zstd.
std::string compress(std::string_view text, int level = k_default_level);

// The bytes compress() was given, from one frame. Errors (invalid_input):
// not a zstd frame, a frame without its content size, more than
// `max_bytes` bytes, or corrupt data (the message names zstd's reason).
Result<std::string> decompress(std::string_view frame, std::uint64_t max_bytes = k_max_decompressed_bytes);

// A zstd dictionary ready to compress (at one level) and decompress with:
// small files that share keys and names compress several times smaller
// against one. Copies share the prepared zstd state.
class Dictionary {
public:
  friend std::string compress(std::string_view text, const Dictionary& dict);
  friend Result<std::string> decompress(std::string_view frame, const Dictionary& dict,
                                        std::uint64_t max_bytes);

  // Errors (invalid_input): `bytes` is not a zstd dictionary.
  static Result<Dictionary> load(std::string bytes, int level = k_default_level);
  // The id frames compressed with it record (never 0).
  [[nodiscard]] std::uint32_t id() const;
  [[nodiscard]] const std::string& bytes() const;

private:
  struct State;
  explicit Dictionary(std::shared_ptr<const State> state);
  std::shared_ptr<const State> m_state;
};

// A dictionary of at most `max_bytes` bytes trained on `samples` (zstd's
// fastCover, fixed parameters: about 0.1 s for 3 MB of samples), whose
// frames will record `id` (≥ 32768: lower ids are reserved by zstd).
// nullopt when zstd finds too little to learn from (too few or too small
// samples).
std::optional<std::string> train_dictionary(const std::vector<std::string>& samples, std::size_t max_bytes,
                                            std::uint32_t id);

// One zstd frame of `text` compressed against `dict` at the dictionary's level.
std::string compress(std::string_view text, const Dictionary& dict);

// The dictionary id a frame records; 0 when it was compressed without one
// (or is not a zstd frame).
std::uint32_t frame_dictionary_id(std::string_view frame);

// The uncompressed size a frame's header states; nullopt when it is not a
// zstd frame or states none. Reads the header only.
std::optional<std::uint64_t> frame_content_size(std::string_view frame);

// As decompress(frame, max_bytes), for a frame compressed against `dict`.
// Errors (invalid_input): as decompress, or `dict` is not the frame's.
Result<std::string> decompress(std::string_view frame, const Dictionary& dict,
                               std::uint64_t max_bytes = k_max_decompressed_bytes);

} // namespace rfdb::util::zstd
