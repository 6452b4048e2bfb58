#include "common/text_table.h"

#include <algorithm>

namespace trimaran {

void AppendAlignedTable(const std::vector<std::vector<std::string>>& rows, std::string& out,
                        size_t gap) {
  std::vector<size_t> width;
  for (const std::vector<std::string>& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const std::vector<std::string>& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      out += row[c];
      if (c + 1 < row.size()) out.append(width[c] - row[c].size() + gap, ' ');
    }
    out += '\n';
  }
}

}  // namespace trimaran
