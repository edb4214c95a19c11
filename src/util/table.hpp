// Plain aligned text tables for the human output of commands.
#pragma once

#include <string>
#include <vector>

namespace rfdb::util {

enum class Align { left, right };

struct Column {
  std::string header;
  Align align = Align::left;
};

// Render rows under headers, columns separated by two spaces, no trailing
// blanks. Rows shorter than the header are padded with empty cells. Control
// characters and ill-formed UTF-8 in a cell are shown as \xHH
// (escape_for_display), so stored text cannot break a row or drive the
// terminal.
std::string render_table(const std::vector<Column>& columns,
                         const std::vector<std::vector<std::string>>& rows);

} // namespace rfdb::util
