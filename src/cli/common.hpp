// Helpers shared by the command files: opening the database the way every
// command does, output formats, option validators that explain themselves,
// run-id prefixes, SIGINT/SIGTERM, and the precision of numbers in human output.
#pragma once

#include "cli/context.hpp"
#include "domain/version.hpp"
#include "store/database.hpp"

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::cli {

// Open ctx.db_path for writing; `create` says whether a missing file becomes
// a new database (ingest) or is an error as for readers (retract, restore).
enum class Create { yes, no };
Result<store::Database> open_for_write(const Context& ctx, Create create = Create::yes);
// Open ctx.db_path read-only (it must exist; see store::Database::open_read_only).
Result<store::Database> open_for_read(const Context& ctx,
                                      store::OlderSchema older = store::OlderSchema::refuse);
// For `ingest --dry-run`: the database if it exists (opened for writing, every
// change rolled back), else an empty in-memory one, so nothing is created.
Result<store::Database> open_for_dry_run(const Context& ctx);

// The output format: `given` (the command's --format), else the global
// --format, else table on a terminal and json otherwise. A format other than
// table stops the escaping of ctx.out (Context::out_escaper). Errors: usage
// when the format is not one of `allowed`.
Result<std::string> resolve_format(const Context& ctx, const std::string& given,
                                   std::initializer_list<const char*> allowed);

// The one run whose id is `prefix` or starts with it. Errors: not_found (no
// run; hint `rfdb runs`), usage (several runs match; the hint lists them).
Result<std::string> resolve_run(store::Database& db, const std::string& prefix);

// A database and the one run a RUN argument names in it (`rfdb retract`,
// `restore`, `show`).
struct OpenedRun {
  store::Database db;
  std::string run_id; // the full id the prefix resolved to
};
// Open ctx.db_path for writing, an existing database only (open_for_write
// with Create::no), and resolve `prefix` in it (resolve_run). Errors: theirs.
Result<OpenedRun> open_run_for_write(const Context& ctx, const std::string& prefix);
// Open ctx.db_path read-only (open_for_read) and resolve `prefix` in it.
// Errors: theirs.
Result<OpenedRun> open_run_for_read(const Context& ctx, const std::string& prefix);

// Refuse an output file that is the database itself (or its -wal/-shm
// file): writing there would destroy the store. `option` names the flag in
// the message ("-o"). Errors: usage. A PostgreSQL URL has no file to hit.
Result<void> refuse_database_target(const Context& ctx, const std::string& target, std::string_view option);

// CLI11 validators whose messages say what is expected in words.
CLI::Validator iso_date_validator();
// A value that is not empty: '' would read as "not given" ("expected
// <expected>, got an empty string").
CLI::Validator non_empty(const std::string& expected);

// A `--stack` spec (domain::parse_stack_spec): a malformed one is a usage error (exit 2) with
// the parser's message; an empty value passes (runs --stack alone prints the columns).
CLI::Validator stack_spec_validator();
// Warn on ctx.err, once per spec, about a `--stack` package no stored run
// states ("rfdb: warning: --stack 'vlm>=0.26': no stored run states the
// package 'vlm'; the stored runs state: aiter, rocm, torch, vllm"): a
// misspelled package otherwise just matches no run. Errors: db.
Result<void> warn_unstated_stack_packages(store::Database& db, const std::vector<domain::StackSpec>& specs,
                                          const Context& ctx);
// A --gfx value: a gfx target or a known device name, normalized as ingest
// stores it ("MI300X", "GFX942" → "gfx942"). Refused (exit 2): empty (--gfx ''
// is no filter) or neither gfx-shaped nor a known device ("bogus", "gfx 950").
CLI::Validator gfx_validator();
CLI::Validator path_validator(); // a path: not empty ('' would read as "not given")
CLI::Validator one_of(std::vector<std::string> values);
CLI::Validator positive_number();     // a finite number > 0
CLI::Validator non_negative_number(); // a finite number ≥ 0

// A date window whose start (`from_option`, e.g. --since) is after its end
// (`to_option`, --as-of or --until) selects nothing: a usage error naming
// both. Empty strings are not given. Errors: usage.
Result<void> check_date_window(const std::string& from, std::string_view from_option, const std::string& to,
                               std::string_view to_option);

// Today's date (UTC, YYYY-MM-DD) from the injected clock.
std::string today(const Context& ctx);

// Numbers in human output, rounded to the precision the field has.
std::string fmt_speedup(const std::optional<double>& x);  // × over baseline, 3 decimals
std::string fmt_percent(const std::optional<double>& x);  // percent 0–100, 2 decimals
std::string fmt_fraction(const std::optional<double>& x); // fraction 0–1, 4 decimals
// The decimals a numeric column of a query or export table is shown with,
// from its name (speedup → 3, percent → 2, fraction → 4); nullopt = as stored.
std::optional<int> decimals_for_column(const std::string& column);

// A model as people name it: "Qwen/Qwen3-32B" for the HF cache path
// ".../models--Qwen--Qwen3-32B/snapshots/<hash>", the last path component
// for another filesystem path, the value itself otherwise ("-" when absent).
std::string model_id(const std::optional<std::string>& model);

// While alive (and ctx.handle_signals), SIGINT and SIGTERM ask the command
// to stop instead of ending the process: the first one to stop after the
// unit of work in progress (interrupted(ctx)), a second one to stop at once,
// rolling that unit back (aborted(ctx)); the command still prints what it
// did. A third one terminates the process as usual. The handler stays
// installed after the scope until the process exits, so a late signal cannot
// cut the report short; the scope decides when counting starts.
class StopScope {
public:
  explicit StopScope(const Context& ctx);
  ~StopScope() = default;
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;
};
// True once the user asked to stop (one signal inside a StopScope, or ctx.interrupted).
bool interrupted(const Context& ctx);
// True once the user asked to stop at once (a second signal, or ctx.aborted).
bool aborted(const Context& ctx);
// The exit code of a command the user stopped: 143 (128 + SIGTERM) when a
// SIGTERM was among the signals, else 130 (128 + SIGINT, or a test's stop).
int interrupted_exit_code();

} // namespace rfdb::cli
