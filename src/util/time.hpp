// Dates and times, always UTC, always through Howard Hinnant's date library
// so output never depends on the local time zone (docs/architecture.md, "Conventions").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace rfdb::util {

// Parse "YYYY-MM-DD" strictly: four-digit year, two-digit month and day,
// a day the month has (2026-02-31 and 2025-02-29 give nullopt, 2024-02-29
// parses); nullopt on anything else.
std::optional<std::chrono::sys_days> parse_iso_date(std::string_view text);
// "YYYY-MM-DD" of a day, or of the UTC day containing a time point.
std::string format_iso_date(std::chrono::sys_days day);
std::string format_iso_date(std::chrono::system_clock::time_point t);
// "YYYY-MM-DDTHH:MM:SSZ" (seconds precision, UTC).
std::string format_iso_timestamp(std::chrono::system_clock::time_point t);
// Whole days from `from` to `to` (negative when `to` is earlier).
long days_between(std::chrono::sys_days from, std::chrono::sys_days to);

} // namespace rfdb::util
