// Error values: codes, messages and hints, and the exit code of each code (see error.hpp).
#include "util/error.hpp"

#include <utility>

namespace rfdb {

Error Error::with_context(std::string ctx) const&
{
  Error copy = *this;
  return std::move(copy).with_context(std::move(ctx));
}

Error Error::with_context(std::string ctx) &&
{
  context.insert(context.begin(), std::move(ctx));
  return std::move(*this);
}

Error Error::with_hint(std::string h) &&
{
  hint = std::move(h);
  return std::move(*this);
}

std::string Error::describe() const
{
  std::string out;
  for (const auto& c : context) {
    out += c;
    out += ": ";
  }
  out += message;
  return out;
}

Error make_error(ErrorCode code, std::string message)
{
  Error e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

int exit_code_for(ErrorCode code)
{
  switch (code) {
  case ErrorCode::usage:
    return 2;
  case ErrorCode::schema_too_new:
  case ErrorCode::not_rfdb_db:
    return 3;
  case ErrorCode::interrupted:
    return 130;
  default:
    return 1;
  }
}

const char* to_string(ErrorCode code)
{
  switch (code) {
  case ErrorCode::usage:
    return "usage";
  case ErrorCode::invalid_input:
    return "invalid_input";
  case ErrorCode::not_found:
    return "not_found";
  case ErrorCode::schema_too_new:
    return "schema_too_new";
  case ErrorCode::needs_migration:
    return "needs_migration";
  case ErrorCode::not_rfdb_db:
    return "not_rfdb_db";
  case ErrorCode::db:
    return "db";
  case ErrorCode::retry:
    return "retry";
  case ErrorCode::io:
    return "io";
  case ErrorCode::internal:
    return "internal";
  case ErrorCode::disk_full:
    return "disk_full";
  case ErrorCode::read_only:
    return "read_only";
  case ErrorCode::interrupted:
    return "interrupted";
  }
  return "internal";
}

} // namespace rfdb
