// `rfdb ingest PATH...` — store eval dirs, single artifacts (with --run) and
// legacy knowledge (cards dirs, backend_playbook.md, _inbox proposals).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::cli {

struct IngestOptions {
  std::vector<std::string> paths;
  std::string run_id; // empty = from the eval dir name
  bool dry_run = false;
  bool strict = false;
  bool allow_copy = false;
  bool rehash = false; // --rehash: ignore the size+mtime fast path; repair damaged stored copies
  bool follow_links = false;
  std::uint64_t max_file_size = 0; // bytes; 0 = ingest's default (64 MiB)
  std::vector<std::string> tags;   // --tag key=value, set on every ingested run
  std::string format;              // table | json ("" = the global --format, else by terminal)
};
void add_ingest_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_ingest(const IngestOptions& opts, Context& ctx);

} // namespace rfdb::cli
