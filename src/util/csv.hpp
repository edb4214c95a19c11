// CSV fields as RFC 4180 writes them.
#pragma once

#include <string>
#include <string_view>

namespace rfdb::util {

// `field` as one CSV field (RFC 4180): unchanged unless it holds ',', '"',
// '\n' or '\r'; then wrapped in '"' with every '"' doubled
// (csv_field("a,\"b\"") == "\"a,\"\"b\"\"\"").
std::string csv_field(std::string_view field);

} // namespace rfdb::util
