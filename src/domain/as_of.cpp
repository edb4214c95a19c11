// The as_of rule (domain/as_of.hpp).
#include "domain/as_of.hpp"

#include "util/time.hpp"

namespace rfdb::domain {

void NewestDate::see(std::string_view date)
{
  // Compare first: most dates are not newer, and those need no parse.
  if (date > m_newest && util::parse_iso_date(date)) {
    m_newest = std::string(date);
  }
}

std::string resolve_as_of(std::string_view given, const NewestDate& runs)
{
  return util::parse_iso_date(given) ? std::string(given) : runs.value();
}

} // namespace rfdb::domain
