#include "cli/common.hpp"

#include "util/time.hpp"

namespace rfdb::cli {

Result<store::Database> open_for_write(const Context& ctx)
{
  auto db = store::Database::open(ctx.db_path);
  if (!db) {
    return fail(std::move(db).error().with_context(ctx.db_path));
  }
  return db;
}

Result<store::Database> open_for_read(const Context& ctx)
{
  auto db = store::Database::open_existing_or_empty(ctx.db_path);
  if (!db) {
    return fail(std::move(db).error().with_context(ctx.db_path));
  }
  return db;
}

CLI::Validator iso_date_validator()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!util::parse_iso_date(value)) {
          return "expected a date YYYY-MM-DD, got '" + value + "'";
        }
        return {};
      },
      "DATE", "iso_date");
}

std::string today(const Context& ctx)
{
  return util::format_iso_date(ctx.now());
}

} // namespace rfdb::cli
