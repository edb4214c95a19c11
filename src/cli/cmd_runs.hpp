// `rfdb runs` — list stored runs; `rfdb show RUN` — one run in full.
// `show --format json` is a contract (README "JSON contracts").
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rfdb::cli {

struct RunsOptions {
  std::string format;                            // table | json ("" = the global --format, else by terminal)
  bool all = false;                              // include retracted runs
  bool retracted = false;                        // only retracted runs
  std::string gfx, model, backend, since, until; // filters ("" = any)
  bool show_stack = false;                       // --stack given (with or without a spec): stack columns
  std::vector<std::string> stack;                // --stack SPEC filters (all must hold)
  std::vector<std::string> tags;                 // --tag key=value filters (all must hold)
};
void add_runs_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_runs(const RunsOptions& opts, Context& ctx);

struct ShowOptions {
  std::string run_id;     // or any unique prefix
  std::string format;     // table | json ("" = the global --format, else by terminal)
  std::string attempt;    // --attempt KEY: only that attempt, in full (cli/show_attempt.hpp)
  std::string finding;    // --finding ID: a GEAK kb record instead of a run (cli/show_finding.hpp)
  bool run_given = false; // RUN was on the command line (possibly empty)
};
void add_show_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_show(const ShowOptions& opts, Context& ctx);

} // namespace rfdb::cli
