// Internal to the playbook renderer: the markdown helpers (playbook.cpp)
// that the section renderers share (works.hpp, calibration.hpp). Not a
// public API.
#pragma once

#include "report/findings.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report::detail {

// A document is a list of blocks (paragraphs, lists, tables, fences) joined
// by one blank line, which is all markdownlint's spacing rules ask for.
using Blocks = std::vector<std::string>;

// "1 run", "2 runs".
std::string plural(std::size_t n, std::string_view one, std::string_view many);
// A markdown table without a trailing newline; `align` holds "---" / "---:".
std::string table(const std::vector<std::string>& header, const std::vector<std::string>& align,
                  const std::vector<std::vector<std::string>>& rows);

} // namespace rfdb::report::detail
