#include "common/text_table.h"

#include <string>

#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(AppendAlignedTableTest, AlignsColumnsWithoutTrailingPadding) {
  std::string out = "head\n";
  AppendAlignedTable({{"RANK", "NODE", "TOTAL"},
                      {"1", "node-a", "180  <- chosen"},
                      {"2", "a-much-longer-node", "95"}},
                     out);
  EXPECT_EQ(out,
            "head\n"
            "RANK  NODE                TOTAL\n"
            "1     node-a              180  <- chosen\n"
            "2     a-much-longer-node  95\n");
}

TEST(AppendAlignedTableTest, GapAndRaggedRows) {
  std::string out;
  AppendAlignedTable({{"a", "bb"}, {"ccc"}, {}}, out, /*gap=*/1);
  EXPECT_EQ(out, "a   bb\nccc\n\n");
  std::string empty;
  AppendAlignedTable({}, empty);
  EXPECT_EQ(empty, "");
}

}  // namespace
}  // namespace trimaran
