// The as_of rule shared by `rfdb report`, `rfdb priors` and the CLI: the date
// given (--as-of) when it is a date, else the newest run date seen.
#pragma once

#include <string>
#include <string_view>

namespace rfdb::domain {

// The newest valid "YYYY-MM-DD" among the dates seen; text that is not a
// valid date (including "" and 2026-02-31) never counts.
class NewestDate {
public:
  // Consider one date.
  void see(std::string_view date);
  // The newest valid date seen; "" when none was.
  [[nodiscard]] const std::string& value() const { return m_newest; }

private:
  std::string m_newest;
};

// as_of: `given` when it is a valid date, else runs.value() ("" when no run
// has a valid date).
std::string resolve_as_of(std::string_view given, const NewestDate& runs);

} // namespace rfdb::domain
