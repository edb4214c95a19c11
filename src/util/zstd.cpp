// zstd frames of stored text (see util/zstd.hpp): one reused compression and
// decompression context per thread, dictionaries trained with fastCover.
#include "util/zstd.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <zstd.h>

// ZDICT_trainFromBuffer_fastCover (fixed parameters, no search) is in
// zdict.h's advanced section; Debian's libzstd exports it.
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>

namespace rfdb::util::zstd {

namespace {

struct CCtxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxFree {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
struct CDictFree {
  void operator()(ZSTD_CDict* c) const { ZSTD_freeCDict(c); }
};
struct DDictFree {
  void operator()(ZSTD_DDict* d) const { ZSTD_freeDDict(d); }
};

// Contexts are reused: creating one per call costs more than compressing a
// typical few-kB artifact.
ZSTD_CCtx* compression_context()
{
  thread_local const std::unique_ptr<ZSTD_CCtx, CCtxFree> ctx(ZSTD_createCCtx());
  return ctx.get();
}

ZSTD_DCtx* decompression_context()
{
  thread_local const std::unique_ptr<ZSTD_DCtx, DCtxFree> ctx(ZSTD_createDCtx());
  return ctx.get();
}

// One frame, with `ddict` when the frame was compressed against a dictionary.
Result<std::string> decompress_frame(std::string_view frame, const ZSTD_DDict* ddict, std::uint64_t max_bytes)
{
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: not a zstd frame ({} bytes)", frame.size()));
  }
  if (size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return fail(ErrorCode::invalid_input, "corrupt compressed text: the zstd frame does not state its size");
  }
  if (size > max_bytes) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: the zstd frame claims {} bytes, more than {}", size,
                            max_bytes));
  }
  std::string out(static_cast<std::size_t>(size), '\0');
  const std::size_t n =
      ddict == nullptr
          ? ZSTD_decompressDCtx(decompression_context(), out.data(), out.size(), frame.data(), frame.size())
          : ZSTD_decompress_usingDDict(decompression_context(), out.data(), out.size(), frame.data(),
                                       frame.size(), ddict);
  if (ZSTD_isError(n) != 0U) {
    return fail(ErrorCode::invalid_input, fmt::format("corrupt compressed text: {}", ZSTD_getErrorName(n)));
  }
  if (n != out.size()) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: {} bytes decompressed, the frame states {}", n, size));
  }
  return out;
}

} // namespace

struct Dictionary::State {
  std::string bytes;
  std::uint32_t id = 0;
  std::unique_ptr<ZSTD_CDict, CDictFree> cdict;
  std::unique_ptr<ZSTD_DDict, DDictFree> ddict;
};

std::string compress(std::string_view text, int level)
{
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n =
      ZSTD_compressCCtx(compression_context(), out.data(), out.size(), text.data(), text.size(), level);
  if (ZSTD_isError(n) != 0U) {
    // Only a bug (the output is sized by ZSTD_compressBound) or out of memory.
    throw std::runtime_error(fmt::format("zstd compress: {}", ZSTD_getErrorName(n)));
  }
  out.resize(n);
  return out;
}

Result<std::string> decompress(std::string_view frame, std::uint64_t max_bytes)
{
  if (const std::uint32_t id = frame_dictionary_id(frame); id != 0) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: it needs compression dictionary {}", id));
  }
  return decompress_frame(frame, nullptr, max_bytes);
}

Result<std::string> decompress(std::string_view frame, const Dictionary& dict, std::uint64_t max_bytes)
{
  if (const std::uint32_t id = frame_dictionary_id(frame); id != dict.id()) {
    return fail(
        ErrorCode::invalid_input,
        fmt::format("corrupt compressed text: it names compression dictionary {}, not {}", id, dict.id()));
  }
  return decompress_frame(frame, dict.m_state->ddict.get(), max_bytes);
}

Dictionary::Dictionary(std::shared_ptr<const State> state) : m_state(std::move(state)) {}

Result<Dictionary> Dictionary::load(std::string bytes, int level)
{
  auto state = std::make_shared<State>();
  state->id = ZDICT_getDictID(bytes.data(), bytes.size());
  if (state->id == 0) {
    return fail(
        ErrorCode::invalid_input,
        fmt::format("corrupt compression dictionary: not a zstd dictionary ({} bytes)", bytes.size()));
  }
  state->bytes = std::move(bytes);
  state->cdict.reset(ZSTD_createCDict(state->bytes.data(), state->bytes.size(), level));
  state->ddict.reset(ZSTD_createDDict(state->bytes.data(), state->bytes.size()));
  if (!state->cdict || !state->ddict) {
    return fail(ErrorCode::invalid_input, fmt::format("corrupt compression dictionary {}", state->id));
  }
  return Dictionary(std::move(state));
}

std::uint32_t Dictionary::id() const
{
  return m_state->id;
}

const std::string& Dictionary::bytes() const
{
  return m_state->bytes;
}

std::optional<std::string> train_dictionary(const std::vector<std::string>& samples, std::size_t max_bytes,
                                            std::uint32_t id)
{
  std::string joined;
  std::vector<std::size_t> sizes;
  sizes.reserve(samples.size());
  for (const auto& s : samples) {
    joined += s;
    sizes.push_back(s.size());
  }
  std::string dict(max_bytes, '\0');
  ZDICT_fastCover_params_t params{};
  params.k = 200; // segment size and d-mer size: what `zstd --train-fastcover=k=200,d=8` uses
  params.d = 8;
  params.steps = 0;
  params.zParams.compressionLevel = k_default_level;
  params.zParams.dictID = id;
  const std::size_t n = ZDICT_trainFromBuffer_fastCover(dict.data(), dict.size(), joined.data(), sizes.data(),
                                                        static_cast<unsigned>(sizes.size()), params);
  if (ZDICT_isError(n) != 0U) {
    return std::nullopt;
  }
  dict.resize(n);
  return dict;
}

std::string compress(std::string_view text, const Dictionary& dict)
{
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const std::size_t n = ZSTD_compress_usingCDict(compression_context(), out.data(), out.size(), text.data(),
                                                 text.size(), dict.m_state->cdict.get());
  if (ZSTD_isError(n) != 0U) {
    throw std::runtime_error(fmt::format("zstd compress: {}", ZSTD_getErrorName(n)));
  }
  out.resize(n);
  return out;
}

std::uint32_t frame_dictionary_id(std::string_view frame)
{
  return ZSTD_getDictID_fromFrame(frame.data(), frame.size());
}

std::optional<std::uint64_t> frame_content_size(std::string_view frame)
{
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
    return std::nullopt;
  }
  return size;
}

} // namespace rfdb::util::zstd
