// Plain aligned text tables; widths count UTF-8 code points (util/utf8).
#include "util/table.hpp"

#include "util/utf8.hpp"

#include <algorithm>

namespace rfdb::util {

std::string render_table(const std::vector<Column>& columns,
                         const std::vector<std::vector<std::string>>& raw_rows)
{
  // Control characters and ill-formed UTF-8 from stored text would break the
  // alignment or drive the terminal: shown as \xHH.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(raw_rows.size());
  for (const auto& raw : raw_rows) {
    auto& row = rows.emplace_back();
    row.reserve(raw.size());
    for (const auto& cell : raw) {
      row.push_back(escape_for_display(cell));
    }
  }
  std::vector<std::size_t> width(columns.size(), 0);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = utf8_length(columns[c].header);
    for (const auto& row : rows) {
      if (c < row.size()) {
        width[c] = std::max(width[c], utf8_length(row[c]));
      }
    }
  }
  auto line = [&](auto cell_at) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string cell = cell_at(c);
      const std::string pad(width[c] - utf8_length(cell), ' ');
      if (c > 0) {
        out += "  ";
      }
      out += columns[c].align == Align::right ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    return out + "\n";
  };
  std::string out = line([&](std::size_t c) { return columns[c].header; });
  for (const auto& row : rows) {
    out += line([&](std::size_t c) { return c < row.size() ? row[c] : std::string(); });
  }
  return out;
}

} // namespace rfdb::util
