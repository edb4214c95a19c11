// Helpers shared by the artifacts_*.cpp parsers; not part of the ingest API.
#pragma once

#include "ingest/evaldir/artifacts.hpp"
#include "ingest/json_util.hpp"
#include "util/result.hpp"
#include "util/text.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest::detail {

// The JSON pointer of a document's root (""), the parent of every field pointer.
inline const std::string k_root;

// map_error adaptor: prepend `rel_path` as the error's outermost context.
inline auto add_file(std::string_view rel_path)
{
  return [rel_path](Error e) { return std::move(e).with_context(std::string(rel_path)); };
}

// Append a Warning for `file` at `pointer`.
void warn(std::vector<Warning>& warnings, std::string_view file, std::string pointer, std::string message);

// Warn once for each key of `expected` that the object `obj` (at `pointer`
// in `file`) lacks but holds under another spelling: a key equal to it when
// ASCII case, '_', '-' and spaces are ignored (`isolatedSpeedup` for
// `isolated_speedup`). Such a key is not read, since a spelling docs/artifacts.md
// does not list is never guessed; the warning keeps its value from
// vanishing in silence. Nothing happens when `obj` is not an object.
void warn_misspelled_keys(const json& obj, std::initializer_list<std::string_view> expected,
                          const std::string& pointer, std::string_view file, std::vector<Warning>& warnings);

// A warning on `file` when the object `obj` holds none of `fields` (the
// fields rfdb reads from it, in the order named): "none of the fields rfdb
// reads are present (a, b, …); <consequence>" — a file of the wrong shape
// would otherwise become an unmeasured row in silence. Nothing happens when
// one of them is present or `obj` is not an object (the parser refuses that).
void warn_no_field_read(const json& obj, std::initializer_list<std::string_view> fields,
                        std::string_view consequence, std::string_view file, std::vector<Warning>& warnings);

// Error of code invalid_input with `message`.
tl::unexpected<Error> invalid(std::string message);

// Prefix a pointer for messages: "" (the root) reads "(document root)".
std::string show_pointer(const std::string& pointer);

// Fail unless `value` (at `pointer`) is a JSON object.
Result<void> require_object(const json& value, const std::string& pointer);

// pct_gpu_time-like field: percent, must be finite and within 0–100.
Result<std::optional<double>> get_pct(const json& obj, std::string_view key, const std::string& pointer);

// What an exact 0 means for a speedup field.
enum class ZeroSpeedup { reject, means_not_measured };

// Speedup (×): must be finite and > 0, except that with means_not_measured
// an exact 0 reads as null (the orchestrator's "failed" marker).
Result<std::optional<double>> get_speedup(const json& obj, std::string_view key, const std::string& pointer,
                                          ZeroSpeedup zero);

// Throughput-like field: must be ≥ 0.
// e2e throughput delta (percent): finite and in [−100, 1000]; errors name the
// pointer and the value.
Result<std::optional<double>> get_e2e_delta(const json& obj, std::string_view key,
                                            const std::string& pointer);

Result<std::optional<double>> get_non_negative(const json& obj, std::string_view key,
                                               const std::string& pointer);

// A roofline_pct_raw outside (0.001, 1] is infeasible: the byte/FLOP model
// is wrong and the row is `suspect` (docs/glossary.md, "Suspect").
bool infeasible_roofline_pct(double raw);

// '/'-separated components of a relative path (empty components dropped).
std::vector<std::string_view> path_components(std::string_view rel_path);

// `s` without `suffix` when it ends with it.
std::string_view strip_suffix(std::string_view s, std::string_view suffix);

// First non-null string among `keys` of `obj` (wrong types are errors).
Result<std::optional<std::string>> first_string(const json& obj, std::initializer_list<std::string_view> keys,
                                                const std::string& pointer);

// Human lever text from what an attempt states (docs/artifacts.md, "Attempts"):
// "config: <flags>", "backend aiter (env K=V)", "authored triton kernel", …
// validation_status (raw + its class, warning on an unknown value) and
// output_parity of a Director or workflow return document into `o`.
Result<void> read_validation(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings,
                             RunOutcome& o);

std::string describe_lever(const std::optional<std::string>& winner_kind,
                           const std::optional<std::string>& backend, const std::optional<std::string>& env,
                           const std::optional<std::string>& flags);

// op_class of an attempt from a producer `op_kind`; warns when unrecognized.
std::string attempt_op_class(const std::optional<std::string>& op_kind, std::string_view file,
                             const std::string& pointer, std::vector<Warning>& warnings);

} // namespace rfdb::ingest::detail
