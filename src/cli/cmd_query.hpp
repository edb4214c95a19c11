// `rfdb query NAME [-p key=value]…` — run a named read-only query from
// queries/ and print it as a table, CSV or JSON.
#pragma once

#include "cli/context.hpp"
#include "store/admin.hpp"

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace rfdb::cli {

struct QueryOptions {
  std::string name;
  std::vector<std::string> params; // key=value
  std::string format;              // table | csv | json ("" = the global --format, else by terminal)
  bool list = false;
};
void add_query_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_query(const QueryOptions& opts, Context& ctx);

// Render a result table in `format` (table | csv | json) to `out`. JSON keeps
// numbers as numbers and embeds JSON columns; the table rounds numbers to
// their field's precision (decimals_for_column).
void print_table(const store::Table& t, const std::string& format, std::ostream& out);

} // namespace rfdb::cli
