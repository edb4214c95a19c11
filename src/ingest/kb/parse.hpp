// Parsing GEAK kb records (docs/kb.md; GEAK-KB §2–§5): knowledge.json of the
// kernel and e2e lanes, meta.yaml / meta.json of a kb_artifacts experience, champion.json.
// Pure: text in, store rows out; no I/O.
#pragma once

#include "ingest/json_util.hpp"
#include "store/kb_records.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest::kb {

// A YAML document as JSON (yaml-cpp): mappings → objects, sequences → arrays, plain scalars
// typed as YAML's core schema does (null/~, true/false, integers, floats), quoted scalars
// strings. Errors (invalid_input): "invalid YAML at line L, column C: …".
Result<json> parse_yaml_text(std::string_view text);

// What the caller knows about a record besides its document.
struct RecordContext {
  std::string lane;                  // kernel | e2e | experience
  std::string record_key;            // session id, or exp id
  std::vector<std::string> identity; // kb store: the identity dir's path components (from "geak");
                                     // kb_artifacts: gfx, kernel_class, slug, exp_id
  int rungs = 1;                     // identity dirs holding the session
  std::optional<std::string> patch;  // patch.diff's text, when the record has one
  std::vector<std::pair<std::string, std::string>> artifacts; // artifact/<name>: (name, bytes)
  // e2e lane: files/kernels/<name>.patch as ("kernels/<name>.patch", bytes), by path.
  std::vector<std::pair<std::string, std::string>> kernel_patches;
};

// The record `doc` (knowledge.json for kernel/e2e, meta.* for experience) describes.
// Errors (invalid_input, naming the JSON pointer of the field): a document that is not an
// object, a `value` / `metric` / `identity` that is not an object, a field of the wrong type
// (a non-numeric speedup or throughput, a non-integer reproductions, techniques that are not
// strings …), an e2e document without throughput_tok_s. Ledger counters are read defensively
// (GEAK-KB §4.1): a non-integer, negative or boolean counter reads 0, a non-object history
// entry is dropped. An e2e record's stored per-kernel patches are signed (csha:) into
// extra.kernel_patches {"kernels/<name>.patch": "csha:…"}. `retained` retires the record only as the boolean
// false (GEAK tests `retained is False`): another value (a quoted 'false', 0) is ignored and, when `warnings`
// is given, named there ("/retained: the string \"false\", not the YAML boolean false; …").
Result<store::KbRecord> parse_record(const json& doc, const RecordContext& ctx,
                                     std::vector<std::string>* warnings = nullptr);

// champion.json: {metric, session_id, value}. Errors (invalid_input, naming the field).
Result<store::KbChampion> parse_champion(const json& doc, const std::string& canonical_id);

// GEAK's session id rule (GEAK-KB §1.3): ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.
bool valid_session_id(std::string_view sid);

} // namespace rfdb::ingest::kb
