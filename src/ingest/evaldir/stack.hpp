// The stack of a run (issue 30): which versions of the serving backend,
// torch, ROCm, aiter, triton, flydsl and the profiler a run used, read from
// env_report.json, env_info.txt, the roofline-v1 documents' `tool` /
// `tool_version`, and the rocprof-compute install record
// (kernels/<task>/roofline/install.json). Pure functions, no I/O; a package
// no file states is absent, never guessed.
#pragma once

#include "ingest/json_util.hpp"
#include "store/run_records.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::ingest {

// The profiler's package name in a run's stack (stack rows, `--stack`).
inline constexpr std::string_view k_stack_profiler = "rocprof-compute";

// What one file says about the stack, before the run's files are combined.
struct StackClues {
  std::vector<store::StackRow> packages;   // env_info.txt lines; a roofline doc's profiler version
  std::vector<std::string> profiler_paths; // rocprof-compute paths (roofline doc tool.path, install record)
};

// env_info.txt: every line of exactly two fields `<package> <version>` (or
// one field `<package>==<version>`) whose version parses as PEP 440
// ("torch 2.10.0+rocm7.1.2", "sgl-kernel 0.3.21"); other lines (GPU
// banners, `KEY=value`, `quantization: …`) are not packages. Never fails.
StackClues stack_from_env_info(std::string_view text, const std::string& rel_path);

// A roofline-v1 document: `tool_version` (else `tool.version.text`) →
// package rocprof-compute with its release ("rocprofiler-compute version:
// 3.1.1" → 3.1.1); `tool.path` → a profiler path. Never fails.
StackClues stack_from_roofline(const json& doc, const std::string& rel_path);

// The install record: the `path` of its last attempt with status ok (else
// its top-level `path`). Never fails.
StackClues stack_from_install(const json& doc, const std::string& rel_path);

// One file's clues with where they came from.
struct SourcedClues {
  std::string rel_path;
  StackClues clues;
};

// Combine a run's clues into its stack rows (sorted by package):
// - the backend: env_report.json's backend_version under the backend's
//   name (`env_source` its rel_path), over an env_info.txt line;
// - other packages: the first file (in `files` order) that states them;
// - rocm: from torch's local version (`+rocm7.1.2`), else the backend's
//   (`.rocm712`), else a profiler path `/opt/rocm-X.Y.Z/…` (via says which);
// - rocprof-compute: a roofline doc's version, else the first profiler path
//   (raw = the path, no release).
std::vector<store::StackRow> assemble_stack(const store::EnvReport& env, const std::string& env_source,
                                            const std::vector<SourcedClues>& files);

} // namespace rfdb::ingest
