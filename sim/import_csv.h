#pragma once
// Reading the public traces' CSV files for the importers (import_alibaba_v2018.h,
// import_openb.h): rows with their line numbers, an optional header row, and cell
// parsers whose errors name the file and the line ("batch_task.csv:3: plan_cpu: not a
// number: \"x\"").
//
// Header detection: a file's first non-blank row is a header when (1) at least one of the
// cells that should be numbers does not parse as one, and (2) every cell looks like a
// column name (a letter or '_' first, then letters, digits, '_', ' ' or '.'). A first row
// failing (1) is data; a first row failing only (2) is data too, and its bad number is
// then reported by the importer as an error. When the header names every expected column,
// the columns are taken by name (any order; extra columns ignored); otherwise positionally.
//
// Thread-safety: pure functions over plain values.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trimaran::sim {

struct CsvRow {
  int line = 0;
  // In the order of the expected columns (and, positionally, any extra cells after them).
  std::vector<std::string> cells;
};

struct CsvTable {
  std::string file;
  std::vector<CsvRow> rows;
  // The header row's line, 0 when the file has none.
  int header_line = 0;
  // Whether the header named the columns (else they were taken positionally).
  bool by_name = false;
};

struct CsvLayout {
  // The expected columns, in the trace's documented order.
  std::vector<std::string> columns;
  // Indices (into `columns`) of the cells that must be numbers (for header detection).
  std::vector<int> numeric;
  // Rows must have at least this many cells (default: all the columns), and at most
  // all the columns unless `allow_extra`.
  int min_cells = -1;
  bool allow_extra = false;
};

// Splits `text` into rows (blank lines skipped; "\r\n" accepted) and checks the cell
// counts; InvalidArgument "file:line: expected N columns (a, b, ...), got M" otherwise.
// Cells are not unquoted: the traces have no quoted cells.
absl::StatusOr<CsvTable> ReadCsv(absl::string_view text, absl::string_view file,
                                 const CsvLayout& layout);

// Cell parsers: InvalidArgument "file:line: column: ..." on a malformed cell. The
// optional forms return nullopt for an empty cell.
absl::Status CellError(const CsvTable& t, const CsvRow& row, absl::string_view column,
                       absl::string_view what);
absl::StatusOr<double> CellNumber(const CsvTable& t, const CsvRow& row, int index,
                                  const CsvLayout& layout);
absl::StatusOr<std::optional<double>> CellOptNumber(const CsvTable& t, const CsvRow& row, int index,
                                                    const CsvLayout& layout);
absl::StatusOr<int64_t> CellInt(const CsvTable& t, const CsvRow& row, int index,
                                const CsvLayout& layout);

}  // namespace trimaran::sim
