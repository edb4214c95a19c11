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

// One file read into memory with its content hash. list_eval_dir fills
// only the path, kind and stat; load_file adds the content and hash.
struct FileData {
  std::string rel_path;
  ArtifactKind kind;
  std::string content;
  std::string sha256;        // lower-case hex; empty until loaded
  std::string path;          // where it was found (under the link's own path)
  std::int64_t size = 0;     // stat st_size when listed
  std::int64_t mtime_ns = 0; // stat st_mtim when listed, ns since the epoch
};

// Files larger than this are refused before they are read (--max-file-size):
// real artifacts are a few MiB at most, and ingest holds a run in memory.
inline constexpr std::uint64_t k_default_max_file_size = std::uint64_t{64} << 20U;

// An entry of an eval dir that was not read, and why.
struct RefusedEntry {
  std::string rel_path;
  std::string reason; // "symlink leaving the eval dir (→ /x)", "FIFO", …
};

struct EvalDirContents {
  std::vector<FileData> files;       // sorted by rel_path
  std::vector<RefusedEntry> refused; // sorted by rel_path
};

// Every artifact of the eval dir `dir`. A symlink that resolves inside `dir`
// is followed, to a file or a directory (read under the link's own path; a
// link back into a directory being walked is a loop and is refused). A
// symlink that leaves `dir` or resolves nowhere, and every FIFO, socket or
// device, is refused — listed in `refused`, never opened.
// Errors: io when a directory cannot be listed or a file read; invalid_input
// when an artifact is larger than `max_file_size` bytes (checked before it
// is read).
Result<EvalDirContents> read_eval_dir(const std::filesystem::path& dir,
                                      std::uint64_t max_file_size = k_default_max_file_size);

// The artifacts of `dir` as read_eval_dir finds them, with their stat but
// without reading any content (sha256 and content empty). Errors: as
// read_eval_dir, except that no file is opened.
Result<EvalDirContents> list_eval_dir(const std::filesystem::path& dir,
                                      std::uint64_t max_file_size = k_default_max_file_size);

// Read a listed file's content and hash it. Errors: as read_file.
Result<void> load_file(FileData& file, std::uint64_t max_file_size = k_default_max_file_size);

// Read one regular file of at most `max_bytes`. The size is checked with
// fstat before anything is read, and the file is opened non-blocking, so a
// FIFO cannot hang the read. Errors: io (cannot open or read), invalid_input
// (not a regular file; larger than `max_bytes`, naming its size).
Result<std::string> read_file(const std::filesystem::path& path,
                              std::uint64_t max_bytes = k_default_max_file_size);

// "67108864 bytes (64.0 MiB)": a byte count for messages.
std::string describe_size(std::uint64_t bytes);

// Lower-case hex SHA-256 of `data` (OpenSSL libcrypto).
std::string sha256_hex(std::string_view data);

// The name of a directory as the user means it: "runs/e2e_x/", "e2e_x/." and
// "." all name e2e_x (a trailing separator has an empty filename()).
std::string directory_name(const std::filesystem::path& dir);

// True when `dir` looks like an eval dir: its name is e2e_…_YYYYmmdd_HHMMSS…,
// or it holds a file or directory an eval dir has from its first milestone
// on (env_report.json, env_info.txt, model_path.txt, env_report.md,
// baseline/, profile/, overlay/, kernels/, validation/, workflow_return.json,
// director_e2e_validation.json). Anything else is read as knowledge.
bool looks_like_eval_dir(const std::filesystem::path& dir);

// For a single artifact given on the command line: its eval-dir-relative path,
// recovered from the known layout (".../profile/round_0/profile_topN.json" →
// "profile/round_0/profile_topN.json"), else the file name.
std::string relative_artifact_path(const std::filesystem::path& file);

} // namespace rfdb::ingest
