// Stored file text as zstd frames with a trained shared dictionary (see
// store/text_codec.hpp).
#include "store/text_codec.hpp"

#include "rfdb_sql.hpp"

#include "util/zstd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace rfdb::store {

TextCodec::TextCodec(Database& db) : m_db(&db) {}
TextCodec::TextCodec(TextCodec&&) noexcept = default;
TextCodec& TextCodec::operator=(TextCodec&&) noexcept = default;
TextCodec::~TextCodec() = default;

Result<void> TextCodec::load_newest()
{
  auto s = m_db->prepare(sql::k_dict_newest, "dict_newest");
  if (!s) {
    return fail(std::move(s).error());
  }
  bool found = false;
  RFDB_TRY_ASSIGN(found, s->step());
  m_newest.reset();
  m_next_training = k_first_training_files;
  if (found) {
    const auto id = static_cast<std::uint32_t>(s->get_int("dict_id"));
    m_next_training = s->get_int("trained_files") * k_training_growth;
    auto dict = util::zstd::Dictionary::load(s->get_blob("dict"));
    s->reset();
    // A damaged newest dictionary (`rfdb check` names it) is not used to
    // compress: new frames then name no dictionary, so they stay readable.
    if (dict && dict->id() == id) {
      m_dicts[id] = std::make_shared<const util::zstd::Dictionary>(std::move(*dict));
      m_newest = id;
    }
  }
  m_loaded = true;
  return {};
}

Result<const util::zstd::Dictionary*> TextCodec::dictionary(std::uint32_t id)
{
  if (const auto it = m_dicts.find(id); it != m_dicts.end()) {
    return it->second.get();
  }
  auto s = m_db->prepare(sql::k_dict_get, "dict_get");
  if (!s) {
    return fail(std::move(s).error());
  }
  s->bind(":dict_id", static_cast<std::int64_t>(id));
  bool found = false;
  RFDB_TRY_ASSIGN(found, s->step());
  if (!found) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: it names compression dictionary {}, which the database "
                            "does not hold",
                            id));
  }
  auto dict = util::zstd::Dictionary::load(s->get_blob("dict"));
  s->reset();
  if (!dict) {
    return fail(std::move(dict).error());
  }
  auto& slot = m_dicts[id];
  slot = std::make_shared<const util::zstd::Dictionary>(std::move(*dict));
  return slot.get();
}

Result<void> TextCodec::train(std::int64_t files, std::string_view now)
{
  m_next_training = std::max(files, std::int64_t{1}) * k_training_growth;
  auto s = m_db->prepare(sql::k_dict_samples, "dict_samples");
  if (!s) {
    return fail(std::move(s).error());
  }
  s->bind(":step", std::max<std::int64_t>(1, files / k_training_samples)).bind(":limit", k_training_samples);
  std::vector<std::string> samples;
  const auto add = [&](const Statement& row) -> Result<void> {
    auto text = decompress(row.get_blob("raw_zst"), row.get_int("bytes"));
    if (!text) {
      if (text.error().code != ErrorCode::invalid_input) {
        return fail(std::move(text).error());
      }
      return {}; // a damaged stored copy (`rfdb check` lists it) is no sample
    }
    samples.push_back(std::move(*text));
    return {};
  };
  RFDB_TRY(for_each_row(*s, add));
  auto next = m_db->prepare(sql::k_dict_next_id, "dict_next_id");
  if (!next) {
    return fail(std::move(next).error());
  }
  bool row = false;
  RFDB_TRY_ASSIGN(row, next->step());
  const auto id = static_cast<std::uint32_t>(row ? next->get_int("dict_id") : 32768);
  next->reset();
  auto trained = util::zstd::train_dictionary(samples, k_dictionary_bytes, id);
  if (!trained) {
    return {}; // too little to learn from yet: keep the current dictionary (or none)
  }
  auto dict = util::zstd::Dictionary::load(*trained);
  if (!dict) {
    return fail(std::move(dict).error());
  }
  auto insert = m_db->prepare(sql::k_dict_insert, "dict_insert");
  if (!insert) {
    return fail(std::move(insert).error());
  }
  insert->bind(":dict_id", static_cast<std::int64_t>(id)).bind_blob(":dict", *trained);
  insert->bind(":trained_files", files).bind(":samples", static_cast<std::int64_t>(samples.size()));
  insert->bind(":trained_at", now);
  RFDB_TRY(insert->exec());
  m_dicts[id] = std::make_shared<const util::zstd::Dictionary>(std::move(*dict));
  m_newest = id;
  return {};
}

Result<std::string> TextCodec::compress(std::string_view text, std::string_view now, const FrameAhead* ahead)
{
  if (!m_state) {
    auto prepared = m_db->prepare(sql::k_dict_state, "dict_state");
    if (!prepared) {
      return fail(std::move(prepared).error());
    }
    m_state.emplace(std::move(*prepared));
  }
  // Once per write transaction: in it no other writer stores files or
  // dictionaries, so the count then moves only with stored().
  const std::uint64_t tx = m_db->write_transaction();
  std::int64_t files = m_files;
  if (tx == 0 || tx != m_state_tx || !m_loaded) {
    Statement* s = &*m_state;
    if (m_loaded) {
      s->bind(":dict_id", m_newest ? std::optional<std::int64_t>(*m_newest) : std::nullopt);
    }
    bool row = false;
    RFDB_TRY_ASSIGN(row, s->step());
    files = row ? s->get_int("files") : 0;
    // A dictionary this codec trained in a transaction that was rolled back
    // (or one another process dropped) is gone: reload the newest stored one.
    const bool present = row && s->get_int("present") != 0;
    s->reset();
    m_state_tx = 0;
    if (m_newest && !present) {
      m_dicts.clear(); // its id may come back with other content
      m_loaded = false;
    }
    if (!m_loaded) {
      RFDB_TRY(load_newest());
    }
    m_state_tx = tx;
    m_files = files;
  }
  if (files >= m_next_training) {
    RFDB_TRY(train(files, now));
  }
  const std::shared_ptr<const util::zstd::Dictionary> dict = m_newest ? m_dicts.at(*m_newest) : nullptr;
  if (ahead != nullptr && ahead->dict == dict) {
    return ahead->frame;
  }
  return compress_ahead(text, dict).frame;
}

void TextCodec::stored(std::int64_t source_id)
{
  if (m_state_tx != 0 && m_state_tx == m_db->write_transaction()) {
    m_files = std::max(m_files, source_id);
  }
}

std::shared_ptr<const util::zstd::Dictionary> TextCodec::newest_dictionary() const
{
  if (!m_newest) {
    return nullptr;
  }
  const auto it = m_dicts.find(*m_newest);
  return it == m_dicts.end() ? nullptr : it->second;
}

FrameAhead TextCodec::compress_ahead(std::string_view text,
                                     std::shared_ptr<const util::zstd::Dictionary> dict)
{
  std::string frame = dict ? util::zstd::compress(text, *dict) : util::zstd::compress(text);
  return FrameAhead{std::move(dict), std::move(frame)};
}

Result<std::string> TextCodec::decompress(std::string_view frame, std::int64_t bytes)
{
  const std::uint32_t id = util::zstd::frame_dictionary_id(frame);
  const auto max = static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 0));
  Result<std::string> text;
  if (id == 0) {
    text = util::zstd::decompress(frame, max);
  } else {
    const util::zstd::Dictionary* dict = nullptr;
    RFDB_TRY_ASSIGN(dict, dictionary(id));
    text = util::zstd::decompress(frame, *dict, max);
  }
  if (!text) {
    return text;
  }
  if (static_cast<std::int64_t>(text->size()) != bytes) {
    return fail(ErrorCode::invalid_input,
                fmt::format("corrupt compressed text: {} bytes, the row records {}", text->size(), bytes));
  }
  return text;
}

} // namespace rfdb::store
