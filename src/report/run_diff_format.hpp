// Rendering `rfdb diff` (report/run_diff.hpp): a text table, or JSON (docs/json.md).
#pragma once

#include "report/run_diff.hpp"

#include <string>

namespace rfdb::report {

// What a rendering lists: the differences only (the default), or every item.
enum class DiffRows { changed, all };

// The human table: the two runs ("a  RUN (DATE)", "b  …"), "N differences" or "no differences",
// then one section per kind of item that has a row to list, in the order identity, stack,
// workload, heads, attempts, throughput, validation, tags. Field sections are rows
// field | a | b; stack rows package | state | a | b; heads and attempts one row each, a cell
// "a → b" where the field changed. Numbers at their unit's precision (diff_decimals).
std::string render_run_diff_table(const RunDiff& diff, DiffRows rows);

// The same as one JSON document (docs/json.md, `rfdb diff`): a, b, differences, then the
// sections as arrays. Numbers as stored.
std::string render_run_diff_json(const RunDiff& diff, DiffRows rows);

} // namespace rfdb::report
