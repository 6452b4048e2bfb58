#pragma once
// AppendAlignedTable: the one column-aligned text table printer of the command-line
// reports (`trimaranctl score`'s node table, `trimaranctl explain`'s top nodes):
//
//   RANK  NODE    TOTAL
//   1     node-a  180  <- chosen
//   2     node-b  95
//
// Every cell is left-aligned and padded to its column's widest cell (widths in bytes:
// the cells are ASCII), columns are separated by `gap` spaces, nothing follows a row's
// last cell, and every row ends with "\n". Rows may have different lengths.
//
// Thread-safety: a pure function.

#include <cstddef>
#include <string>
#include <vector>

namespace trimaran {

// Appends `rows` (the header first, when there is one) to `out`.
void AppendAlignedTable(const std::vector<std::vector<std::string>>& rows, std::string& out,
                        size_t gap = 2);

}  // namespace trimaran
