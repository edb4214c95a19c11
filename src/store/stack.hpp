// The stack of stored runs (run_stack, migration 0014; issue 30): reading it
// back, the `--stack` filter, and what changed between two runs.
#pragma once

#include "domain/version.hpp"
#include "store/database.hpp"
#include "store/run_records.hpp"

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace rfdb::store {

// One run's stack rows, by package. Errors: db.
Result<std::vector<StackRow>> run_stack(Database& db, const std::string& run_id);
// Every stored run's stack rows (retracted runs included), by run_id then package. Errors: db.
Result<std::map<std::string, std::vector<StackRow>>> all_run_stacks(Database& db);

// The row of `package` (normalized, domain::normalize_package) in a run's
// stack; `backend` names the run's backend (runs.backend): the package
// "backend" is that backend's row. nullptr when the run lacks it.
const StackRow* find_package(std::span<const StackRow> stack, const std::string& package,
                             const std::optional<std::string>& backend);

// Every package (normalized) a stack row of a run in `stacks` states, sorted.
std::set<std::string> stated_packages(const std::map<std::string, std::vector<StackRow>>& stacks);

// The `--stack` specs naming a package no stored run states: neither a stack
// row's package (normalized) of any run in `stacks` nor "backend" when any
// row exists. In spec order; empty when every package is stated somewhere.
// Used to warn about a misspelled package ("vlm>=0.26"), which otherwise
// just matches no run.
std::vector<const domain::StackSpec*>
unstated_packages(const std::map<std::string, std::vector<StackRow>>& stacks,
                  std::span<const domain::StackSpec> specs);

// Does a run satisfy every spec (`--stack`, all must hold)? A spec on a
// package the run lacks, or whose raw string is not a PEP 440 version (a
// profiler path), does not hold. rocm is compared on its release, a tool
// banner ("rocprofiler-compute version: 3.1.1") on the version in it.
bool stack_matches(std::span<const StackRow> stack, const std::optional<std::string>& backend,
                   std::span<const domain::StackSpec> specs);

// The version a stack row is compared on between runs: rocm its release, any other package
// its raw string ("0.26.1.dev37+g9c1d2e4.rocm712"). stack_changes and `rfdb diff` compare by it.
std::string stack_version_text(const StackRow& row);

// What changed between two runs' stacks, by package: "vllm 0.24.1.dev9+g0d3e7a1.rocm702 →
// 0.26.0.dev412+gb81a6f0.rocm712", "flydsl (none) → 0.2.1", "sglang 0.5.17 → (none)". A package whose raw
// string is the same in both is not listed; rocm compares its release.
std::vector<std::string> stack_changes(std::span<const StackRow> before, std::span<const StackRow> after);
// The same for two stored runs. Errors: db.
Result<std::vector<std::string>> stack_changes(Database& db, const std::string& run_before,
                                               const std::string& run_after);

} // namespace rfdb::store
