// Helpers shared by the command files: opening the database the way every
// command does, and the option validators they share.
#pragma once

#include "cli/context.hpp"
#include "store/database.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace rfdb::cli {

// Open (and create) ctx.db_path for writing commands.
Result<store::Database> open_for_write(const Context& ctx);
// Open ctx.db_path for reading; a missing file reads as an empty database.
Result<store::Database> open_for_read(const Context& ctx);

// CLI11 validator for YYYY-MM-DD dates.
CLI::Validator iso_date_validator();

// Today's date (UTC, YYYY-MM-DD) from the injected clock.
std::string today(const Context& ctx);

} // namespace rfdb::cli
