// `rfdb show RUN --attempt KEY`: one attempt in full — every field of the
// attempt model, its prediction and every cited file with the JSON pointer
// of the row — so a playbook reference RUN#ATTEMPT can be traced to its
// evidence. The JSON form is a contract like `show --format json`.
#pragma once

#include "cli/context.hpp"
#include "store/database.hpp"
#include "store/runs.hpp"

#include <string>

namespace rfdb::cli {

// Print attempt `key` of `run` to ctx.out ("json" or "table"); returns exit
// code 0. Errors (exit 1): no attempt with that key (the message lists the
// run's keys), a database failure.
Result<int> show_attempt(store::Database& db, const store::RunDetail& run, const std::string& key,
                         const std::string& format, Context& ctx);

} // namespace rfdb::cli
