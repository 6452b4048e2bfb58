#include "sim/import_csv.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

CsvLayout Layout() { return CsvLayout{.columns = {"id", "t", "v"}, .numeric = {1, 2}}; }

TEST(ReadCsv, HeaderlessRowsArePositional) {
  absl::StatusOr<CsvTable> t = ReadCsv("a,1,2\r\n\nb,3,\n", "f.csv", Layout());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header_line, 0);
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].line, 1);
  EXPECT_THAT(t->rows[0].cells, ElementsAre("a", "1", "2"));
  EXPECT_EQ(t->rows[1].line, 3);
  EXPECT_THAT(t->rows[1].cells, ElementsAre("b", "3", ""));
}

TEST(ReadCsv, AHeaderNamingTheColumnsIsReadByName) {
  absl::StatusOr<CsvTable> t = ReadCsv("v,ID,t,extra\n2,a,1,x\n", "f.csv", Layout());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header_line, 1);
  EXPECT_TRUE(t->by_name);
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_THAT(t->rows[0].cells, ElementsAre("a", "1", "2"));
}

TEST(ReadCsv, AnUnknownHeaderIsSkippedAndColumnsStayPositional) {
  absl::StatusOr<CsvTable> t = ReadCsv("inst_name,time,value\na,1,2\n", "f.csv", Layout());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header_line, 1);
  EXPECT_FALSE(t->by_name);
  EXPECT_THAT(t->rows[0].cells, ElementsAre("a", "1", "2"));
}

TEST(ReadCsv, AFirstRowWithABadNumberIsDataNotAHeader) {
  // "1x" does not parse, but "7" does not look like a column name: data, and the bad
  // number is the caller's error with the line.
  absl::StatusOr<CsvTable> t = ReadCsv("a,1x,7\n", "f.csv", Layout());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->header_line, 0);
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_THAT(CellNumber(*t, t->rows[0], 1, Layout()).status().message(),
              HasSubstr("f.csv:1: t: not a number: \"1x\""));
  EXPECT_EQ(*CellNumber(*t, t->rows[0], 2, Layout()), 7);
}

TEST(ReadCsv, CellCountsAreChecked) {
  EXPECT_THAT(ReadCsv("a,1,2\nb,1\n", "f.csv", Layout()).status().message(),
              HasSubstr("f.csv:2: expected 3 columns (id, t, v), got 2"));
  EXPECT_THAT(ReadCsv("a,1,2,3\n", "f.csv", Layout()).status().message(),
              HasSubstr("f.csv:1: expected 3 columns (id, t, v), got 4"));
  CsvLayout loose = Layout();
  loose.min_cells = 2;
  loose.allow_extra = true;
  EXPECT_TRUE(ReadCsv("a,1\nb,1,2,3,4\n", "f.csv", loose).ok());
}

TEST(CellParsers, OptionalRequiredAndIntegers) {
  absl::StatusOr<CsvTable> t = ReadCsv("a,,2.5\n", "f.csv", Layout());
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(CellOptNumber(*t, t->rows[0], 1, Layout())->has_value());
  EXPECT_THAT(CellNumber(*t, t->rows[0], 1, Layout()).status().message(),
              HasSubstr("f.csv:1: t: required"));
  EXPECT_THAT(CellInt(*t, t->rows[0], 2, Layout()).status().message(),
              HasSubstr("f.csv:1: v: not an integer: \"2.5\""));
}

}  // namespace
}  // namespace trimaran::sim
