// JSON reading for ingest: one lenient-but-safe text parser and typed field
// accessors that tolerate what LLM-written JSON does (numbers as strings,
// booleans as strings, `//` comments) while naming the JSON pointer of every
// value they reject.
//
// Nothing here touches files: callers pass text already read into memory.
// nlohmann exceptions are caught here (docs/architecture.md, "Conventions") and never escape.
#pragma once

#include "util/result.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

using json = nlohmann::json;

// Deepest array/object nesting parse_json_text accepts. Real artifacts nest
// < 10 levels; the cap keeps hostile input from recursing (docs/artifacts.md, "What makes an ingest fail, and
// what only warns").
inline constexpr int k_max_json_depth = 128;

// Parse one JSON document. Accepts `//` and `/* */` comments and a UTF-8 BOM;
// strict otherwise (no trailing commas, no trailing junk, no NaN/Infinity).
// A key repeated in one object keeps its last value, except that a measured
// field (is_measured_field) repeated with different values is an error: which
// one the producer meant is unknowable, and either would enter calibration.
// Errors (invalid_input, message "line L:C: …" where a position exists):
// "empty file", "binary or non-UTF-8 content", "nesting deeper than 128",
// "truncated JSON", "non-finite number", "<pointer>: duplicate key …", or
// nlohmann's syntax reason.
Result<json> parse_json_text(std::string_view text);

// True for the numeric measurement fields (speedups, e2e deltas, GPU-time
// shares, roofline efficiencies, predictions, throughputs, timings): the one
// list of fields whose duplicate keys must agree.
bool is_measured_field(std::string_view key);

// A member name that appears more than once in one JSON object.
struct DuplicateKey {
  std::string pointer; // JSON pointer of the repeated member
  std::string key;
  bool measured = false;      // is_measured_field(key)
  bool values_differ = false; // measured only: some repeat differs from the first value
  std::string first_value;    // measured only: describe_value of the first and the
  std::string last_value;     // last (kept) value
};

// A document with the keys it repeats (parse_json_document).
struct ParsedJson {
  json doc;
  std::vector<DuplicateKey> duplicates; // in the order the repeats occur; none differ if measured
};

// parse_json_text and find_duplicate_keys in one pass: the document and every
// repeated key it holds (each file is parsed once). Errors: as
// parse_json_text.
Result<ParsedJson> parse_json_document(std::string_view text);

// Every repeated key of `text`, in the order the repeats occur (cheap when
// there are none: one linear scan, no parse). Errors: as parse_json_text,
// except that duplicates are reported, not refused.
Result<std::vector<DuplicateKey>> find_duplicate_keys(std::string_view text);

// JSON pointer of member `key` / element `index` below `parent` ("" = root),
// escaping `~` and `/` per RFC 6901.
std::string child_pointer(std::string_view parent, std::string_view key);
std::string child_pointer(std::string_view parent, std::size_t index);

// Typed accessors for member `key` of `obj`, whose own JSON pointer is
// `pointer` (errors name `pointer + "/" + key`). A missing key, a null value,
// an empty string, or an `obj` that is not an object gives nullopt.

// Number, or a string holding one (" 26.45 ", "+1.5"). Errors: other types,
// unparsable strings, non-finite values ("nan", "inf").
Result<std::optional<double>> get_double(const json& obj, std::string_view key, const std::string& pointer);
// Integer, an integral float (64.0), or a string holding one. Errors: other
// types, fractional values, values outside int64.
Result<std::optional<std::int64_t>> get_int(const json& obj, std::string_view key,
                                            const std::string& pointer);
// String; numbers and booleans give their JSON text ("1.047", "true").
// Errors: arrays and objects.
Result<std::optional<std::string>> get_string(const json& obj, std::string_view key,
                                              const std::string& pointer);
// Boolean; also "true"/"false"/"yes"/"no" strings (any case) and integers
// 0/1. Errors: anything else.
Result<std::optional<bool>> get_bool(const json& obj, std::string_view key, const std::string& pointer);

// The member's compact JSON text (`dump()`), or nullopt when missing/null.
// Used for columns that keep structured values as JSON (shapes, peaks, …).
std::optional<std::string> get_json_text(const json& obj, std::string_view key);

// Short rendering of a value for error messages: its JSON text, cut at ~60
// characters with "…".
std::string describe_value(const json& value);

} // namespace rfdb::ingest
