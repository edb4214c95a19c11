// `rfdb diff RUN_A RUN_B`: what differs between two stored runs (docs/README.md, docs/json.md;
// the comparison is report/run_diff.hpp's).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct DiffOptions {
  std::string run_a, run_b; // run ids or unique prefixes, as `rfdb show` takes them
  std::string format;       // table | json ("" = the global --format, else by terminal)
  bool all = false;         // list equal items too, not only the differences
};
void add_diff_command(CLI::App& app, Context& ctx, Runner& runner);
// Exit 0 whether or not the runs differ (exit 1 means an error here, so "differences found"
// cannot take it as diff(1) does; `.differences` in the JSON says it); errors as `rfdb show`:
// not_found (exit 1) for an unknown run, usage (exit 2) for an empty or ambiguous prefix.
Result<int> run_diff(const DiffOptions& opts, Context& ctx);

} // namespace rfdb::cli
