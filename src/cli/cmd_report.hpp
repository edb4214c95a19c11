// `rfdb report` — the backend playbook in markdown (docs/playbook.md).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct ReportOptions {
  std::string output;    // -o FILE; empty = stdout
  std::string as_of;     // YYYY-MM-DD; default: newest run date
  std::string since;     // YYYY-MM-DD
  std::string gfx;       // only this GPU
  std::string cards_dir; // --cards DIR
};
void add_report_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_report(const ReportOptions& opts, Context& ctx);

} // namespace rfdb::cli
