#include "cli/cmd_report.hpp"
namespace rfdb::cli {
void add_report_command(CLI::App& app, Context&, Runner&) { app.add_subcommand("report", "TODO"); }
} // namespace rfdb::cli
