#include "util/time.hpp"

#include <date/date.h>

#include <sstream>

namespace rfdb::util {

std::optional<std::chrono::sys_days> parse_iso_date(std::string_view text)
{
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return std::nullopt;
  }
  std::istringstream in{std::string(text)};
  date::sys_days day;
  in >> date::parse("%F", day);
  if (in.fail()) {
    return std::nullopt;
  }
  // date::parse accepts e.g. 2026-02-30 only if valid; double-check round trip.
  if (date::format("%F", day) != text) {
    return std::nullopt;
  }
  return std::chrono::sys_days{day.time_since_epoch()};
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
