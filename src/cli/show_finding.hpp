// `rfdb show --finding ID`: one GEAK kb record (docs/kb.md) — identity, metric, direction,
// techniques, stack, reproductions, lifecycle and retired status with its reason, signature,
// champion status and the attestation ledger (counters and history, oldest → newest).
#pragma once

#include "cli/context.hpp"
#include "util/result.hpp"

#include <string>

namespace rfdb::cli {

// Print kb record `id` (its number, its session or exp id, or a unique prefix of that) from the
// database of `ctx` as "table" or "json"; returns exit code 0. Errors: not_found (exit 1) when
// no current record matches; usage (exit 2) for an ambiguous prefix; a database failure.
Result<int> show_finding(const std::string& id, const std::string& format, Context& ctx);

} // namespace rfdb::cli
