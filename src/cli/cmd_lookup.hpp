// `rfdb lookup KERNEL --gfx GFX`: the best known levers for one kernel on one GPU, best first
// (docs/lookup.md; JSON: docs/json.md). The rules are report/lookup.hpp's.
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct LookupOptions {
  std::string kernel;
  std::string gfx;
  std::string backend, dtype, shape, case_name, model, workload; // "" = not given
  std::string format; // table | json ("" = the global --format, else by terminal)
};
void add_lookup_command(CLI::App& app, Context& ctx, Runner& runner);
// Exit 0 with the levers (none is an answer: nothing measured a win on the key); errors:
// not_found (exit 1) when KERNEL resolves to no stored kernel (the message names the nearest
// ones) or has evidence only on other gfx; usage for a malformed --workload / --shape.
Result<int> run_lookup(const LookupOptions& opts, Context& ctx);

} // namespace rfdb::cli
