// `rfdb show RUN --attempt KEY`: one attempt in full — every field of the
// attempt model, its prediction and every cited file with the JSON pointer
// of the row — so a playbook reference RUN#ATTEMPT can be traced to its
// evidence. The JSON form is a contract like `show --format json`.
#pragma once

#include "cli/context.hpp"
#include "store/database.hpp"
#include "store/runs.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace rfdb::cli {

// The value of `v` as JSON, or null when it is empty.
template <typename T> nlohmann::ordered_json json_or_null(const std::optional<T>& v)
{
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// Append the outcome fields of attempt `a` to the object `j`, in this order:
// verdict_raw, output_parity, parity_kind, reason, reject_reason, deployed,
// post_measured, post_efficiency, post_note ("post measured a stack of N
// levers", else null), validation {class, throughput_speedup}.
// `rfdb show` (each attempt) and `rfdb show --attempt` both end with them.
void append_attempt_outcome(nlohmann::ordered_json& j, const store::AttemptRow& a);

// Print attempt `key` of `run` to ctx.out ("json" or "table"); returns exit
// code 0. Errors (exit 1): no attempt with that key (the message lists the
// run's keys), a database failure.
Result<int> show_attempt(store::Database& db, const store::RunDetail& run, const std::string& key,
                         const std::string& format, Context& ctx);

} // namespace rfdb::cli
