// `rfdb export --raw`: the current version of stored files written back,
// byte-identical to what was ingested, under a directory:
// OUT/<run_id>/<rel_path>, knowledge files under OUT/knowledge/<rel_path>.
#pragma once

#include "store/database.hpp"
#include "store/sources.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace rfdb::store {

struct FileExportRequest {
  std::optional<std::string> run_id; // a stored run id; nullopt: every run and the knowledge files
  std::string out;                   // the directory to write into (created if missing; "DIR/" = "DIR")
  bool force = false;                // overwrite files that exist (default: refuse before writing any)
  std::function<bool()> interrupted; // polled before each file is written; empty = never
};

struct FileExportSummary {
  std::size_t runs = 0;    // runs with at least one file written
  std::size_t files = 0;   // files written
  std::uint64_t bytes = 0; // their bytes
};

// Write every current file of `request`'s scope under request.out. Every
// target is checked first (an existing file refuses the export unless
// force; no directory below `out` may be a symbolic link); each file is
// verified against its recorded size and sha256 and written into a staging
// directory first; only when every file verified and was written does
// anything land under `out` (the staging directory renamed to it when it did
// not exist, else each file renamed into place). The staging directory, and
// the directories made for it, are removed on any error. Errors: io (a
// target that exists, a link, a create/write/rename failure), invalid_input
// (a stored path that would leave `out`, or files that fail verification,
// each named), interrupted ("nothing was written under OUT") when
// request.interrupted says so, and the database's.
Result<FileExportSummary> export_stored_files(Database& db, const FileExportRequest& request);

} // namespace rfdb::store
