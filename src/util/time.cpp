// UTC dates and times through Howard Hinnant's date library (see util/time.hpp).
#include "util/time.hpp"

#include <date/date.h>

namespace rfdb::util {

std::optional<std::chrono::sys_days> parse_iso_date(std::string_view text)
{
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  // Digits only (from_chars alone would take a sign); no streams, as the
  // estimator parses one date per attempt.
  const auto number = [&](std::size_t pos, std::size_t len) -> std::optional<unsigned> {
    unsigned v = 0;
    for (const char c : text.substr(pos, len)) {
      if (c < '0' || c > '9') {
        return std::nullopt;
      }
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v;
  };
  const auto y = number(0, 4);
  const auto m = number(5, 2);
  const auto d = number(8, 2);
  if (!y || !m || !d) {
    return std::nullopt;
  }
  const date::year_month_day ymd{date::year{static_cast<int>(*y)}, date::month{*m}, date::day{*d}};
  if (!ymd.ok()) { // month 1–12 and a day that month has (2026-02-29 is not)
    return std::nullopt;
  }
  return std::chrono::sys_days{date::sys_days{ymd}.time_since_epoch()};
}

std::string format_iso_date(std::chrono::sys_days day)
{
  return date::format("%F", day);
}

std::string format_iso_date(std::chrono::system_clock::time_point t)
{
  return date::format("%F", date::floor<date::days>(t));
}

std::string format_iso_timestamp(std::chrono::system_clock::time_point t)
{
  return date::format("%FT%TZ", date::floor<std::chrono::seconds>(t));
}

long days_between(std::chrono::sys_days from, std::chrono::sys_days to)
{
  return static_cast<long>((to - from).count());
}

} // namespace rfdb::util
