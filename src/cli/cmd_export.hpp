// `rfdb export`: every attempt with its prediction and outcome (the
// calibration rows) as a table, CSV or JSON; with --raw, the stored files
// written back byte-identical (store/file_export.hpp); with --kb DIR, the
// measured positive findings as a GEAK local kb store (report/kb_export.hpp).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

struct ExportOptions {
  std::string
      format; // csv | json | table ("" = by -o's extension, else the global --format, else by terminal)
  std::string output; // empty = stdout
  // --raw: write stored files back instead of the attempt rows.
  bool raw = false;
  std::string run_id; // RUN (id or unique prefix); --raw only
  bool all = false;   // --all: every run and the knowledge files; --raw only
  std::string out;    // --out DIR; --raw only
  bool force = false; // --force: overwrite existing files; --raw only
  // --kb DIR: write the measured positive findings as a GEAK local kb store (report/kb_export.hpp).
  std::string kb;
};
void add_export_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_export(const ExportOptions& opts, Context& ctx);

} // namespace rfdb::cli
