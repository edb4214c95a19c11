// Lenient JSON reading: a simdjson fast path, else a pre-lexer (NUL/UTF-8, depth, NaN) and nlohmann (see
// json_util.hpp).
#include "ingest/json_util.hpp"

#include "ingest/json_keys.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <simdjson.h>
#include <vector>

namespace rfdb::ingest {

namespace {

using detail::DuplicateTracker;
using detail::KeyScan;
using detail::number_from_text;

constexpr std::string_view k_utf8_bom = "\xEF\xBB\xBF";

bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

// "line L:C" for a byte offset; the column counts code points, not bytes.
std::string position_of(std::string_view text, std::size_t offset)
{
  const std::string_view head = text.substr(0, std::min(offset, text.size()));
  const auto line = 1 + std::count(head.begin(), head.end(), '\n');
  const auto line_start = head.rfind('\n');
  const std::string_view line_head =
      line_start == std::string_view::npos ? head : head.substr(line_start + 1);
  return fmt::format("line {}:{}", line, 1 + util::utf8_length(line_head));
}

enum class ScanState { code, string, line_comment, block_comment };

// Walk text[0, end) as JSON with comments: `on_code(i)` for each byte
// outside strings and comments (a string's quotes excluded), and
// `on_string(body)` for each string literal closed before `end`, with its
// text between the quotes (escapes as written). Stops at the first byte for
// which on_code returns true and returns its offset; nullopt otherwise.
template <typename OnCode, typename OnString>
std::optional<std::size_t> walk_json_code(std::string_view text, std::size_t end, OnCode on_code,
                                          OnString on_string)
{
  ScanState state = ScanState::code;
  std::size_t string_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    const char c = text[i];
    const char next = i + 1 < end ? text[i + 1] : '\0';
    switch (state) {
    case ScanState::string:
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        state = ScanState::code;
        on_string(text.substr(string_start, i - string_start));
      }
      break;
    case ScanState::line_comment:
      state = c == '\n' ? ScanState::code : state;
      break;
    case ScanState::block_comment:
      if (c == '*' && next == '/') {
        state = ScanState::code;
        ++i;
      }
      break;
    case ScanState::code:
      if (c == '"') {
        state = ScanState::string;
        string_start = i + 1;
      } else if (c == '/' && (next == '/' || next == '*')) {
        state = next == '/' ? ScanState::line_comment : ScanState::block_comment;
        ++i;
      } else if (on_code(i)) {
        return i;
      }
      break;
    }
  }
  return std::nullopt;
}

// A member name as written between its quotes, with its escapes decoded
// (\/, \u00e9 …); as written when they are not valid.
std::string decoded_key(std::string_view raw)
{
  if (raw.find('\\') == std::string_view::npos) {
    return std::string(raw);
  }
  try {
    return json::parse("\"" + std::string(raw) + "\"").get<std::string>();
  } catch (const json::exception&) {
    return std::string(raw);
  }
}

// The JSON pointer of the innermost value being read at byte `offset`: one
// pass over text[0, offset) keeping, per open container, the member name
// last read (objects, escapes decoded) or the element index (arrays).
// Strings and comments are skipped as the prescan skips them. "" at the
// top level.
std::string pointer_at(std::string_view text, std::size_t offset)
{
  struct Frame {
    bool object = false;
    bool has_key = false; // a member name was read since '{' or ','
    std::string key;
    std::size_t index = 0;
  };
  std::vector<Frame> stack;
  const auto on_code = [&](std::size_t i) {
    const char c = text[i];
    if (c == '{' || c == '[') {
      stack.push_back(Frame{c == '{', false, {}, 0});
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == ',' && !stack.empty()) {
      stack.back().has_key = false;
      ++stack.back().index;
    }
    return false;
  };
  // A string where an object expects a member name is that name.
  const auto on_string = [&](std::string_view body) {
    if (!stack.empty() && stack.back().object && !stack.back().has_key) {
      stack.back().key = decoded_key(body);
      stack.back().has_key = true;
    }
  };
  walk_json_code(text, std::min(offset, text.size()), on_code, on_string);
  std::string out;
  for (const auto& f : stack) {
    if (!f.object) {
      out = child_pointer(out, f.index);
    } else if (f.has_key) {
      out = child_pointer(out, f.key);
    } else {
      break; // between members: the object itself
    }
  }
  return out;
}

// Where a problem at byte `offset` is: "/pointer: line L:C", or "line L:C"
// at the top level or when the pointer is too long to help (a nesting-depth
// error is 128 levels down).
std::string location_of(std::string_view text, std::size_t offset)
{
  constexpr std::size_t k_max_pointer_shown = 200;
  const std::string pointer = pointer_at(text, offset);
  return pointer.empty() || pointer.size() > k_max_pointer_shown ? position_of(text, offset)
                                                                 : pointer + ": " + position_of(text, offset);
}

struct ScanIssue {
  std::size_t offset = 0;
  std::string what;
};

// Fast path inside a string literal: the index of the last byte before the
// next one that needs the full scanner ('"', '\\', NUL or non-ASCII).
std::size_t skip_plain_string_bytes(std::string_view text, std::size_t i)
{
  while (i + 1 < text.size()) {
    const auto b = static_cast<unsigned char>(text[i + 1]);
    if (b == '"' || b == '\\' || b == 0 || b >= 0x80) {
      break;
    }
    ++i;
  }
  return i;
}

// One token outside strings and comments at text[i]: tracks nesting depth,
// skips numbers whole (so an exponent 'e' is not read as a word) and rejects
// NaN/Infinity words. Leaves `i` on the token's last character.
std::optional<ScanIssue> scan_token(std::string_view text, std::size_t& i, int& depth)
{
  const char c = text[i];
  const auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\0'; };
  if (c == '{' || c == '[') {
    if (++depth > k_max_json_depth) {
      return ScanIssue{i, fmt::format("nesting deeper than {} levels", k_max_json_depth)};
    }
  } else if (c == '}' || c == ']') {
    depth = depth > 0 ? depth - 1 : 0;
  } else if (is_digit(c) || c == '-' || c == '+' || c == '.') {
    for (char n = at(i + 1); is_digit(n) || n == '.' || n == 'e' || n == 'E' ||
                             ((n == '-' || n == '+') && (text[i] == 'e' || text[i] == 'E'));
         n = at(i + 1)) {
      ++i;
    }
  } else if (is_alpha(c)) {
    std::size_t end = i;
    while (end < text.size() && (is_alpha(text[end]) || is_digit(text[end]) || text[end] == '_')) {
      ++end;
    }
    const std::string word = util::lower_ascii(text.substr(i, end - i));
    if (word == "nan" || word == "inf" || word == "infinity") {
      return ScanIssue{
          i, fmt::format("non-finite number '{}' (JSON has no NaN/Infinity)", text.substr(i, end - i))};
    }
    i = end - 1;
  }
  return std::nullopt;
}

// One linear pass before nlohmann sees the text: rejects NUL / invalid UTF-8,
// nesting beyond k_max_json_depth and NaN/Infinity words, skipping string
// literals and comments. Cheap, and it means nlohmann never meets a
// pathologically deep document. Sets `saw_value` when any token was seen and
// feeds `keys` every structural character and member name.
std::optional<ScanIssue> prescan(std::string_view text, bool& saw_value, KeyScan& keys)
{
  ScanState state = ScanState::code;
  int depth = 0;
  const std::size_t bad_utf8 = util::find_invalid_utf8(text).value_or(std::string_view::npos);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto b = static_cast<unsigned char>(c);
    if (b == 0) {
      return ScanIssue{i, "binary or non-UTF-8 content (NUL byte)"};
    }
    if (b >= 0x80) { // a byte of a multi-byte sequence, well-formed before bad_utf8
      if (i == bad_utf8) {
        return ScanIssue{i, "binary or non-UTF-8 content (invalid UTF-8)"};
      }
      saw_value = saw_value || state == ScanState::code;
      continue;
    }
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
    case ScanState::string:
      if (c == '\\' && next != '\0' && static_cast<unsigned char>(next) < 0x80) {
        keys.on_escape();
        ++i;
      } else if (c == '"') {
        keys.on_string_end(text, i);
        state = ScanState::code;
      } else {
        i = skip_plain_string_bytes(text, i);
      }
      break;
    case ScanState::line_comment:
      if (c == '\n') {
        state = ScanState::code;
      }
      break;
    case ScanState::block_comment:
      if (c == '*' && next == '/') {
        state = ScanState::code;
        ++i;
      }
      break;
    case ScanState::code:
      if (is_space(c)) {
        break;
      }
      if (c == '/' && (next == '/' || next == '*')) {
        state = next == '/' ? ScanState::line_comment : ScanState::block_comment;
        ++i;
        break;
      }
      saw_value = true;
      keys.on_code(c, i);
      if (c == '"') {
        state = ScanState::string;
      } else if (auto issue = scan_token(text, i, depth)) {
        return issue;
      }
      break;
    }
  }
  return std::nullopt;
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line
// 1, column 7: syntax error while parsing value - …"; keep the part after the
// position so our own line:column is the only one in the message.
std::string syntax_reason(const std::string& what)
{
  const auto at = what.find("syntax error");
  return at == std::string::npos ? what : what.substr(at);
}

// Offset of the first occurrence of the number `literal` in `text` standing
// alone as a token (not inside a longer number or a word, nor in a string
// or a comment), or nullopt.
std::optional<std::size_t> find_number_token(std::string_view text, std::string_view literal)
{
  const auto part_of_number = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '+' || c == '-';
  };
  const auto at_literal = [&](std::size_t i) {
    return text.substr(i, literal.size()) == literal && (i == 0 || !part_of_number(text[i - 1])) &&
           (i + literal.size() == text.size() || !part_of_number(text[i + literal.size()]));
  };
  return walk_json_code(text, text.size(), at_literal, [](std::string_view) {});
}

// With a tracker, parse through nlohmann's callback parser (slower; used
// only when the prescan saw a possible duplicate key).
Result<json> parse_with_nlohmann(std::string_view text, DuplicateTracker* tracker = nullptr)
{
  try {
    if (tracker != nullptr) {
      return json::parse(
          text,
          [tracker](int, json::parse_event_t event, json& parsed) {
            return tracker->on_event(event, parsed);
          },
          /*allow_exceptions=*/true, /*ignore_comments=*/true);
    }
    return json::parse(text, nullptr, /*allow_exceptions=*/true,
                       /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    const std::string what = e.what();
    if (what.find("unexpected end of input") != std::string::npos) {
      return fail(ErrorCode::invalid_input,
                  fmt::format("{}: truncated JSON (unexpected end of input)", location_of(text, offset)));
    }
    return fail(ErrorCode::invalid_input,
                fmt::format("{}: invalid JSON: {}", location_of(text, offset), syntax_reason(what)));
  } catch (const json::out_of_range& e) {
    // 406: a literal such as 1e999 overflows a double. nlohmann names the
    // literal but not where it is: find its first occurrence as a token.
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      const std::string literal = what.substr(open + 1, close - open - 1);
      if (const auto at = find_number_token(text, literal)) {
        return fail(ErrorCode::invalid_input, fmt::format("{}: non-finite number '{}' (overflows a double)",
                                                          location_of(text, *at), literal));
      }
      return fail(ErrorCode::invalid_input,
                  fmt::format("non-finite number '{}' (overflows a double)", literal));
    }
    return fail(ErrorCode::invalid_input, "non-finite number (overflows a double)");
  } catch (const json::exception& e) {
    return fail(ErrorCode::invalid_input, fmt::format("invalid JSON: {}", e.what()));
  }
}

const json* find_member(const json& obj, std::string_view key)
{
  if (!obj.is_object()) {
    return nullptr;
  }
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

bool is_blank_string(const json& v)
{
  return v.is_string() && util::trim(v.get_ref<const std::string&>()).empty();
}

tl::unexpected<Error> type_error(const std::string& pointer, std::string_view key, std::string_view expected,
                                 const json& v)
{
  return fail(ErrorCode::invalid_input, fmt::format("{}: expected {}, got {}", child_pointer(pointer, key),
                                                    expected, describe_value(v)));
}

Result<std::optional<std::int64_t>> int_from_double(double d, const std::string& pointer,
                                                    std::string_view key, const json& v)
{
  // 2^63 is exactly representable; anything at or beyond it overflows.
  constexpr double k_limit = 9223372036854775808.0;
  if (!std::isfinite(d) || std::trunc(d) != d || d >= k_limit || d < -k_limit) {
    return type_error(pointer, key, "an integer", v);
  }
  return std::optional<std::int64_t>(static_cast<std::int64_t>(d));
}

} // namespace

// Parse a decimal number written as text; nullopt when it is not one.
std::optional<double> detail::number_from_text(std::string_view s)
{
  s = util::trim(s);
  if (s.size() > 1 && s.front() == '+' && (is_digit(s[1]) || s[1] == '.')) {
    s.remove_prefix(1);
  }
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return value;
}

namespace {

// Text past the BOM that passed the prescan.
struct Screened {
  std::string_view text;
  bool maybe_duplicate_keys = false;
};

Result<Screened> screen(std::string_view text)
{
  if (text.substr(0, k_utf8_bom.size()) == k_utf8_bom) {
    text.remove_prefix(k_utf8_bom.size());
  }
  bool saw_value = false;
  KeyScan keys;
  if (auto issue = prescan(text, saw_value, keys)) {
    return fail(ErrorCode::invalid_input,
                fmt::format("{}: {}", location_of(text, issue->offset), issue->what));
  }
  if (!saw_value) {
    return fail(ErrorCode::invalid_input, "empty file (only whitespace or comments, no JSON value)");
  }
  return Screened{text, keys.maybe_duplicates()};
}

// True when `text` may hold the integer -0 (a "-0" not followed by a digit,
// '.' or an exponent): nlohmann keeps its sign as a signed integer, which
// simdjson's DOM cannot tell from 0, so such text takes the slow path.
bool may_hold_negative_zero(std::string_view text)
{
  for (std::size_t at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 2)) {
    const char next = at + 2 < text.size() ? text[at + 2] : '\0';
    if (!is_digit(next) && next != '.' && next != 'e' && next != 'E') {
      return true;
    }
  }
  return false;
}

// simdjson's element as the nlohmann value parse_with_nlohmann would give
// (non-negative integers unsigned, negative ones signed, the rest double).
// False on what the slow path must judge: a repeated key (duplicate rules),
// nesting deeper than k_max_json_depth.
bool to_nlohmann(simdjson::dom::element e, json& out, int depth)
{
  using simdjson::dom::element_type;
  switch (e.type()) {
  case element_type::ARRAY: {
    if (depth >= k_max_json_depth) {
      return false;
    }
    out = json::array();
    auto& items = out.get_ref<json::array_t&>();
    simdjson::dom::array array;
    if (e.get_array().get(array) != simdjson::SUCCESS) {
      return false;
    }
    items.reserve(array.size());
    for (const simdjson::dom::element child : array) {
      if (!to_nlohmann(child, items.emplace_back(), depth + 1)) {
        return false;
      }
    }
    return true;
  }
  case element_type::OBJECT: {
    if (depth >= k_max_json_depth) {
      return false;
    }
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    simdjson::dom::object object; // not a temporary: the loop below iterates it
    if (e.get_object().get(object) != simdjson::SUCCESS) {
      return false;
    }
    for (const auto field : object) {
      const auto [it, inserted] = members.try_emplace(std::string(field.key));
      if (!inserted || !to_nlohmann(field.value, it->second, depth + 1)) {
        return false;
      }
    }
    return true;
  }
  case element_type::STRING:
    out = std::string(e.get_string().value_unsafe());
    return true;
  case element_type::INT64: {
    const std::int64_t v = e.get_int64().value_unsafe();
    if (v >= 0) {
      out = static_cast<std::uint64_t>(v);
    } else {
      out = v;
    }
    return true;
  }
  case element_type::UINT64:
    out = e.get_uint64().value_unsafe();
    return true;
  case element_type::DOUBLE:
    out = e.get_double().value_unsafe();
    return true;
  case element_type::BOOL:
    out = e.get_bool().value_unsafe();
    return true;
  case element_type::NULL_VALUE:
    out = nullptr;
    return true;
  }
  return false;
}

// The fast path for the common case, strict JSON without repeated keys:
// simdjson validates (UTF-8, syntax, finite numbers) and parses, and its DOM
// becomes the nlohmann document. nullopt for anything else — comments, NaN,
// a BOM-less empty file, any error — which the pre-lexer and nlohmann then
// judge, so every message and position stays theirs.
} // namespace

std::optional<json> detail::parse_json_fast(std::string_view text)
{
  if (text.substr(0, k_utf8_bom.size()) == k_utf8_bom) {
    text.remove_prefix(k_utf8_bom.size());
  }
  if (may_hold_negative_zero(text)) {
    return std::nullopt;
  }
  thread_local simdjson::dom::parser parser;
  // simdjson reads SIMDJSON_PADDING bytes past the text: copy it into a
  // padded buffer reused from file to file (parse() would allocate one per call).
  thread_local std::vector<char> padded;
  if (padded.size() < text.size() + simdjson::SIMDJSON_PADDING) {
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  }
  if (!text.empty()) {
    std::memcpy(padded.data(), text.data(), text.size());
  }
  std::memset(padded.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
  simdjson::dom::element root;
  if (parser.parse(padded.data(), text.size(), false).get(root) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  json out;
  if (!to_nlohmann(root, out, 0)) {
    return std::nullopt;
  }
  return out;
}

Result<ParsedJson> parse_json_document(std::string_view text)
{
  if (auto doc = detail::parse_json_fast(text)) {
    return ParsedJson{std::move(*doc), {}};
  }
  return detail::parse_json_slow(text);
}

Result<ParsedJson> detail::parse_json_slow(std::string_view text)
{
  Screened s;
  RFDB_TRY_ASSIGN(s, screen(text));
  if (!s.maybe_duplicate_keys) {
    auto doc = parse_with_nlohmann(s.text);
    if (!doc) {
      return fail(std::move(doc).error());
    }
    return ParsedJson{std::move(*doc), {}};
  }
  DuplicateTracker tracker;
  auto doc = parse_with_nlohmann(s.text, &tracker);
  if (!doc) {
    return fail(std::move(doc).error());
  }
  auto duplicates = tracker.take();
  for (const auto& d : duplicates) {
    if (d.values_differ) {
      return fail(ErrorCode::invalid_input,
                  fmt::format("{}: duplicate key '{}' with different values ({}, then {}): a measured value "
                              "must not be ambiguous",
                              d.pointer, d.key, d.first_value, d.last_value));
    }
  }
  return ParsedJson{std::move(*doc), std::move(duplicates)};
}

Result<json> parse_json_text(std::string_view text)
{
  auto parsed = parse_json_document(text);
  if (!parsed) {
    return fail(std::move(parsed).error());
  }
  return std::move(parsed->doc);
}

Result<std::vector<DuplicateKey>> find_duplicate_keys(std::string_view text)
{
  Screened s;
  RFDB_TRY_ASSIGN(s, screen(text));
  if (!s.maybe_duplicate_keys) {
    return std::vector<DuplicateKey>();
  }
  DuplicateTracker tracker;
  RFDB_TRY(parse_with_nlohmann(s.text, &tracker));
  return tracker.take();
}

std::string child_pointer(std::string_view parent, std::string_view key)
{
  std::string out(parent);
  out.reserve(parent.size() + key.size() + 1);
  out += '/';
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string child_pointer(std::string_view parent, std::size_t index)
{
  return fmt::format("{}/{}", parent, index);
}

Result<std::optional<double>> get_double(const json& obj, std::string_view key, const std::string& pointer)
{
  const json* v = find_member(obj, key);
  if (v == nullptr || is_blank_string(*v)) {
    return std::optional<double>();
  }
  std::optional<double> value;
  if (v->is_number()) {
    value = v->get<double>();
  } else if (v->is_string()) {
    value = number_from_text(v->get_ref<const std::string&>());
  }
  if (!value) {
    return type_error(pointer, key, "a number", *v);
  }
  if (!std::isfinite(*value)) {
    return fail(ErrorCode::invalid_input,
                fmt::format("{}: non-finite number {}", child_pointer(pointer, key), describe_value(*v)));
  }
  return value;
}

Result<std::optional<std::int64_t>> get_int(const json& obj, std::string_view key, const std::string& pointer)
{
  const json* v = find_member(obj, key);
  if (v == nullptr || is_blank_string(*v)) {
    return std::optional<std::int64_t>();
  }
  if (v->is_number_integer() && !v->is_number_unsigned()) {
    return std::optional<std::int64_t>(v->get<std::int64_t>());
  }
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return type_error(pointer, key, "an integer within int64", *v);
    }
    return std::optional<std::int64_t>(static_cast<std::int64_t>(u));
  }
  if (v->is_number_float()) {
    return int_from_double(v->get<double>(), pointer, key, *v);
  }
  if (v->is_string()) {
    const std::string_view s = util::trim(v->get_ref<const std::string&>());
    std::int64_t i = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && ptr == s.data() + s.size()) {
      return std::optional<std::int64_t>(i);
    }
    if (const auto d = number_from_text(s)) {
      return int_from_double(*d, pointer, key, *v);
    }
  }
  return type_error(pointer, key, "an integer", *v);
}

Result<std::optional<std::string>> get_string(const json& obj, std::string_view key,
                                              const std::string& pointer)
{
  const json* v = find_member(obj, key);
  if (v == nullptr) {
    return std::optional<std::string>();
  }
  if (v->is_string()) {
    const auto& s = v->get_ref<const std::string&>();
    return s.empty() ? std::optional<std::string>() : std::optional<std::string>(s);
  }
  if (v->is_number() || v->is_boolean()) {
    return std::optional<std::string>(v->dump());
  }
  return type_error(pointer, key, "a string", *v);
}

Result<std::optional<bool>> get_bool(const json& obj, std::string_view key, const std::string& pointer)
{
  const json* v = find_member(obj, key);
  if (v == nullptr || is_blank_string(*v)) {
    return std::optional<bool>();
  }
  if (v->is_boolean()) {
    return std::optional<bool>(v->get<bool>());
  }
  if (v->is_number_integer()) {
    const auto i = v->get<std::int64_t>();
    if (i == 0 || i == 1) {
      return std::optional<bool>(i == 1);
    }
  }
  if (v->is_string()) {
    const std::string s = util::lower_ascii(util::trim(v->get_ref<const std::string&>()));
    if (s == "true" || s == "yes") {
      return std::optional<bool>(true);
    }
    if (s == "false" || s == "no") {
      return std::optional<bool>(false);
    }
  }
  return type_error(pointer, key, "a boolean", *v);
}

std::optional<std::string> get_json_text(const json& obj, std::string_view key)
{
  const json* v = find_member(obj, key);
  if (v == nullptr) {
    return std::nullopt;
  }
  return v->dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string describe_value(const json& value)
{
  constexpr std::size_t k_max = 60;
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= k_max) {
    return text;
  }
  text.resize(util::utf8_floor(text, k_max));
  text += "…";
  return text;
}

} // namespace rfdb::ingest
