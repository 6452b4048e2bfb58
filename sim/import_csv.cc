#include "sim/import_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace trimaran::sim {
namespace {

bool LooksLikeName(absl::string_view cell) {
  if (cell.empty() || !(absl::ascii_isalpha(cell[0]) || cell[0] == '_')) return false;
  return std::all_of(cell.begin(), cell.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == ' ' || c == '.';
  });
}

bool ParsesAsNumber(absl::string_view cell) {
  double d = 0;
  return cell.empty() || absl::SimpleAtod(cell, &d);
}

}  // namespace

absl::StatusOr<CsvTable> ReadCsv(absl::string_view text, absl::string_view file,
                                 const CsvLayout& layout) {
  CsvTable table;
  table.file = std::string(file);
  const int n = static_cast<int>(layout.columns.size());
  const int min_cells = layout.min_cells < 0 ? n : layout.min_cells;
  // by_name: for each expected column, its index in the file's rows.
  std::vector<int> index;
  int line_no = 0;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::ConsumeSuffix(&line, "\r");
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    std::vector<std::string> cells;
    for (absl::string_view c : absl::StrSplit(line, ',')) {
      cells.emplace_back(absl::StripAsciiWhitespace(c));
    }
    if (first) {
      first = false;
      bool numbers_fail = false;
      for (int i : layout.numeric) {
        if (i < static_cast<int>(cells.size()) && !ParsesAsNumber(cells[i])) numbers_fail = true;
      }
      if (numbers_fail && std::all_of(cells.begin(), cells.end(), LooksLikeName)) {
        table.header_line = line_no;
        std::map<std::string, int> position;
        for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
          position.emplace(absl::AsciiStrToLower(cells[i]), i);
        }
        std::vector<int> by_name;
        for (const std::string& column : layout.columns) {
          auto it = position.find(column);
          if (it == position.end()) break;
          by_name.push_back(it->second);
        }
        if (static_cast<int>(by_name.size()) == n) {
          table.by_name = true;
          index = std::move(by_name);
        }
        continue;
      }
    }
    CsvRow row;
    row.line = line_no;
    if (table.by_name) {
      const int width = *std::max_element(index.begin(), index.end()) + 1;
      if (static_cast<int>(cells.size()) < width) {
        return absl::InvalidArgumentError(absl::StrCat(file, ":", line_no, ": expected ", width,
                                                       " columns as the header, got ",
                                                       cells.size()));
      }
      for (int i : index) row.cells.push_back(cells[i]);
    } else {
      const int got = static_cast<int>(cells.size());
      if (got < min_cells || (!layout.allow_extra && got > n)) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, ":", line_no, ": expected ", n, " columns (",
                         absl::StrJoin(layout.columns, ", "), "), got ", got));
      }
      row.cells = std::move(cells);
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

absl::Status CellError(const CsvTable& t, const CsvRow& row, absl::string_view column,
                       absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(t.file, ":", row.line, ": ", column, ": ", what));
}

absl::StatusOr<std::optional<double>> CellOptNumber(const CsvTable& t, const CsvRow& row, int index,
                                                    const CsvLayout& layout) {
  if (index >= static_cast<int>(row.cells.size()) || row.cells[index].empty()) {
    return std::optional<double>();
  }
  double d = 0;
  if (!absl::SimpleAtod(row.cells[index], &d) || !std::isfinite(d)) {
    return CellError(t, row, layout.columns[index],
                     absl::StrCat("not a number: \"", row.cells[index], "\""));
  }
  return std::optional<double>(d);
}

absl::StatusOr<double> CellNumber(const CsvTable& t, const CsvRow& row, int index,
                                  const CsvLayout& layout) {
  absl::StatusOr<std::optional<double>> v = CellOptNumber(t, row, index, layout);
  if (!v.ok()) return v.status();
  if (!v->has_value()) return CellError(t, row, layout.columns[index], "required");
  return **v;
}

absl::StatusOr<int64_t> CellInt(const CsvTable& t, const CsvRow& row, int index,
                                const CsvLayout& layout) {
  absl::StatusOr<double> v = CellNumber(t, row, index, layout);
  if (!v.ok()) return v.status();
  if (*v != std::floor(*v) || std::fabs(*v) > 9e15) {
    return CellError(t, row, layout.columns[index],
                     absl::StrCat("not an integer: \"", row.cells[index], "\""));
  }
  return static_cast<int64_t>(*v);
}

}  // namespace trimaran::sim
