// Result<T>: the return type at every module boundary.
//
// tl::expected (Debian libexpected-dev) has the same member names as
// std::expected, so moving to C++23 later is a rename.
#pragma once

#include "util/error.hpp"

#include <tl/expected.hpp>

namespace rfdb {

template <typename T> using Result = tl::expected<T, Error>;

// Shorthand for returning an error from a function that returns Result<T>.
inline tl::unexpected<Error> fail(ErrorCode code, std::string message)
{
  return tl::unexpected<Error>(make_error(code, std::move(message)));
}
inline tl::unexpected<Error> fail(Error e)
{
  return tl::unexpected<Error>(std::move(e));
}

} // namespace rfdb

// Evaluate `expr` (a Result<T>); on error return it from the enclosing
// function, else assign the value to `var` (declared by the caller).
#define RFDB_TRY_ASSIGN(var, expr)                                                                           \
  do {                                                                                                       \
    auto rfdb_try_result_ = (expr);                                                                          \
    if (!rfdb_try_result_) {                                                                                 \
      return tl::unexpected<::rfdb::Error>(std::move(rfdb_try_result_).error());                             \
    }                                                                                                        \
    (var) = std::move(*rfdb_try_result_);                                                                    \
  } while (false)

// Evaluate `expr` (a Result<void> or Result<T>); on error return it. The
// temporary is named after the line, so a RFDB_TRY inside a lambda passed to
// another RFDB_TRY does not shadow the outer one (-Wshadow).
#define RFDB_TRY(expr) RFDB_TRY_AT_(expr, __LINE__)
#define RFDB_TRY_AT_(expr, line) RFDB_TRY_AT2_(expr, line)
#define RFDB_TRY_AT2_(expr, line)                                                                            \
  do {                                                                                                       \
    auto rfdb_try_result_##line = (expr);                                                                    \
    if (!rfdb_try_result_##line) {                                                                           \
      return tl::unexpected<::rfdb::Error>(std::move(rfdb_try_result_##line).error());                       \
    }                                                                                                        \
  } while (false)
