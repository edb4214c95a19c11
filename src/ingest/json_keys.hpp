// Duplicate JSON keys and the two parse paths, for json_util.cpp and its tests; not part of the ingest API.
//
// Two passes, so the common case costs almost nothing: KeyScan rides along
// the prescan and only says "maybe" (hashes of member names per object);
// DuplicateTracker, an nlohmann parser callback, then finds each repeat
// exactly, with its JSON pointer and, for measured fields, both values.
#pragma once

#include "ingest/json_util.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rfdb::ingest::detail {

// Duplicate-key screening during the prescan, without building anything:
// each member name is hashed together with its object's ordinal, and a
// repeated hash means "maybe a duplicate" (a collision only costs the exact
// pass). A key spelled with escapes may equal one spelled without, so any
// escaped key also asks for the exact pass; both are rare.
class KeyScan {
public:
  void on_code(char c, std::size_t i)
  {
    if (c == '{' || c == '[') {
      m_levels.push_back(Level{m_next_object, c == '{', c == '{'});
      m_next_object += c == '{' ? 1 : 0;
    } else if ((c == '}' || c == ']') && !m_levels.empty()) {
      m_levels.pop_back();
    } else if (c == ',' && !m_levels.empty()) {
      m_levels.back().expect_key = m_levels.back().object;
    } else if (c == '"' && !m_levels.empty() && m_levels.back().expect_key) {
      m_levels.back().expect_key = false;
      m_key_start = i + 1;
      m_in_key = true;
    }
  }
  void on_escape() { m_escaped_key = m_escaped_key || m_in_key; }
  void on_string_end(std::string_view text, std::size_t i)
  {
    if (!m_in_key) {
      return;
    }
    m_in_key = false;
    // FNV-1a over the object ordinal and the key's raw bytes.
    std::uint64_t h = 14695981039346656037ULL;
    const auto mix = [&h](unsigned char b) { h = (h ^ b) * 1099511628211ULL; };
    for (std::uint64_t id = m_levels.back().id, k = 0; k < 8; ++k, id >>= 8U) {
      mix(static_cast<unsigned char>(id & 0xFFU));
    }
    for (const char c : text.substr(m_key_start, i - m_key_start)) {
      mix(static_cast<unsigned char>(c));
    }
    m_hashes.push_back(h);
  }
  [[nodiscard]] bool maybe_duplicates()
  {
    if (m_escaped_key) {
      return true;
    }
    std::sort(m_hashes.begin(), m_hashes.end());
    return std::adjacent_find(m_hashes.begin(), m_hashes.end()) != m_hashes.end();
  }

private:
  struct Level {
    std::uint64_t id = 0;
    bool object = false;
    bool expect_key = false;
  };
  std::vector<Level> m_levels;
  std::vector<std::uint64_t> m_hashes;
  std::uint64_t m_next_object = 0;
  std::size_t m_key_start = 0;
  bool m_in_key = false;
  bool m_escaped_key = false;
};

// The exact duplicate-key pass, as an nlohmann parser callback: a stack of
// the containers being parsed (each object's keys so far, each array's
// element index) gives the JSON pointer of every repeat. Only measured
// fields keep their first value, for the comparison.
class DuplicateTracker {
public:
  // The parser callback (always keeps the value).
  bool on_event(json::parse_event_t event, json& parsed);
  // Every repeat found, in the order the repeats occur.
  std::vector<DuplicateKey> take() { return std::move(m_found); }

private:
  struct Frame {
    bool object = false;
    std::size_t index = 0;                                     // array: the element being parsed
    std::string key;                                           // object: the member being parsed
    std::unordered_map<std::string, std::optional<json>> seen; // measured keys keep their first value
    std::optional<std::size_t> repeat;                         // index into m_found of the current member
  };

  void on_key(std::string key);
  void on_value(const json& value);

  std::vector<Frame> m_stack;
  std::vector<DuplicateKey> m_found;
};

// The two paths of parse_json_document, for tests that compare them:
// parse_json_fast is simdjson (nullopt whenever it declines: comments, BOM-less
// empty text, repeated keys, depth, any error); parse_json_slow is the
// pre-lexer and nlohmann, the path every error message comes from.
std::optional<json> parse_json_fast(std::string_view text);
Result<ParsedJson> parse_json_slow(std::string_view text);

// A number, or a string holding one (" 26.45 ", "+1.5"); nullopt otherwise.
std::optional<double> number_from_text(std::string_view s);

} // namespace rfdb::ingest::detail
