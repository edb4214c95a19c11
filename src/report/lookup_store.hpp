// The stored runs as `rfdb lookup` evidence (report/lookup.hpp).
#pragma once

#include "report/lookup.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <vector>

namespace rfdb::report {

// One LookupCandidate per measured kernel attempt of every run not retracted (serving-config
// trials are about no kernel and are left out). `win` is report::in_what_works of the attempt
// with its run's e2e band; `apply` is, in this order, the stored diff or tuning table its
// signature was computed from (apply_kind patch / tuned_table, `files` every such file), its env
// change (a lever "env: A=1 B=2" → env), a serving flag (a lever naming `--flag` → flag), else
// the lever text (other). `stack` is the run's backend and its version. Errors: db.
Result<std::vector<LookupCandidate>> run_lookup_candidates(store::Database& db);

} // namespace rfdb::report
