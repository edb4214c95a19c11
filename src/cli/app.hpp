// Command-line entry point: parses `rfdb [--db PATH] <command> …`, runs the
// command and maps errors to exit codes (0 ok, 1 runtime/input error,
// 2 usage, 3 database newer than this rfdb or not an rfdb file).
#pragma once

#include "cli/context.hpp"
#include "util/error.hpp"

#include <string>
#include <vector>

namespace rfdb::cli {

// Run rfdb as a process would: real stdout/stderr, system clock, $RFDB_DB.
int run(int argc, char** argv);

// Run with explicit arguments (argv[0] excluded) and sinks; used by tests.
// `env_db` stands in for $RFDB_DB (empty = unset).
int run_with(const std::vector<std::string>& args, Context& ctx, const std::string& env_db = "");

// Print `e` as "rfdb: error: <command>: <context>: <message>" (+ "hint: …")
// and return its exit code.
int report_error(Context& ctx, const std::string& command, const Error& e);

} // namespace rfdb::cli
