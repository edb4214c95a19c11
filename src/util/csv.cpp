// CSV field quoting (see util/csv.hpp).
#include "util/csv.hpp"

namespace rfdb::util {

std::string csv_field(std::string_view field)
{
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) {
    return std::string(field);
  }
  std::string quoted = "\"";
  for (const char c : field) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  return quoted + "\"";
}

} // namespace rfdb::util
