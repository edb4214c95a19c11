// Finding and reading the artifacts of an eval dir (FORMATS.md §1).
//
// classify_artifact maps a path relative to the eval dir to the artifact
// kind rfdb reads (or nullopt: ignored). Everything else in an eval dir —
// traces, logs, reports, tuning CSVs — is not read.
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// What a file is, where it sits in the run, and how to label its rows.
struct ArtifactKind {
  std::string kind;  // env_report | bench_summary | profile_topn | profile_roofline |
                     // measured_roofline | integrate_result | opbench_result |
                     // sweep_results | director_validation | workflow_return
  std::string role;  // bench_summary: baseline | validation_base | validation_final |
                     // config | overlay_ref | overlay_cand | final | other
  std::string label; // bench: config dir / overlay candidate; profile: round; measured: task
  std::string phase; // measured_roofline: baseline | post
};

// Classify `rel_path` ('/'-separated, relative to the eval dir).
std::optional<ArtifactKind> classify_artifact(std::string_view rel_path);

// One file read into memory with its content hash.
struct FileData {
  std::string rel_path;
  ArtifactKind kind;
  std::string content;
  std::string sha256; // lower-case hex
};

// Every artifact of the eval dir `dir`, sorted by rel_path. Symlinks are not
// followed. Errors: io when the directory cannot be listed or a file read.
Result<std::vector<FileData>> read_eval_dir(const std::filesystem::path& dir);

// Read one file. Errors: io.
Result<std::string> read_file(const std::filesystem::path& path);

// Lower-case hex SHA-256 of `data` (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);

// The name of a directory as the user means it: "runs/e2e_x/", "e2e_x/." and
// "." all name e2e_x (a trailing separator has an empty filename()).
std::string directory_name(const std::filesystem::path& dir);

// True when `dir` looks like an eval dir (env_report.json, profile/, overlay/,
// kernels/ or workflow_return.json present).
bool looks_like_eval_dir(const std::filesystem::path& dir);

// For a single artifact given on the command line: its eval-dir-relative path,
// recovered from the known layout (".../profile/round_0/profile_topN.json" →
// "profile/round_0/profile_topN.json"), else the file name.
std::string relative_artifact_path(const std::filesystem::path& file);

} // namespace rfdb::ingest
