#include "cli/cmd_priors.hpp"
namespace rfdb::cli {
void add_priors_command(CLI::App& app, Context&, Runner&) { app.add_subcommand("priors", "TODO"); }
} // namespace rfdb::cli
