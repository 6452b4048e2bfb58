#include "sim/trace_files.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/generator.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::trimaran::testing::StatusIs;
using ::trimaran::testing::TempDirForTest;

TEST(TraceFilesTest, FindsThePodsAndNodeGroupsOfATraceDirectory) {
  TempDirForTest dir;
  EXPECT_THAT(FindPodsFile(dir.path()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("directory holds neither pods.csv nor pods.jsonl")));
  const std::string jsonl = dir.Write("pods.jsonl", "");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string pods, FindPodsFile(dir.path()));
  EXPECT_EQ(pods, jsonl);
  EXPECT_EQ(*FindPodsFile("/some/pods.csv"), "/some/pods.csv");  // a file is itself

  EXPECT_EQ(FindNodeGroupsFile(dir.path(), ""), "");
  const std::string groups = dir.Write("node-groups.yaml", "");
  EXPECT_EQ(FindNodeGroupsFile(dir.path(), ""), groups);
  EXPECT_EQ(FindNodeGroupsFile(dir.path(), "mine.yaml"), "mine.yaml");
  EXPECT_EQ(FindNodeGroupsFile(jsonl, ""), "");
}

TEST(TraceFilesTest, GeneratedTraceReadsBack) {
  TempDirForTest dir;
  GenOptions options;
  options.hours = 1;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<TracePod> generated, GenerateSparkTrace(options));
  const std::string out = dir.Path("gen/run1");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WrittenTrace written, WriteGeneratedTrace(out, generated));
  EXPECT_EQ(written.pods, absl::StrCat(out, "/pods.csv"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<TracePod> pods, LoadPodsFile(written.pods));
  EXPECT_THAT(pods, SizeIs(generated.size()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterSpec cluster, LoadClusterSpec(FindNodeGroupsFile(out, "")));
  EXPECT_THAT(cluster.groups, SizeIs(3));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterSpec fallback, LoadClusterSpec(""));
  EXPECT_EQ(fallback.groups.size(), DefaultClusterSpec().groups.size());
}

TEST(TraceFilesTest, ErrorsNameThePath) {
  EXPECT_THAT(ReadTraceFile("/nonexistent/pods.csv"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("/nonexistent/pods.csv: cannot open file")));
  EXPECT_THAT(WriteTraceFile("/nonexistent", "pods.csv", "x"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("/nonexistent/pods.csv: cannot write")));
}

TEST(TraceFilesTest, FindsThePublicTracesTables) {
  bool any = false;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      AlibabaV2018Input ali,
      FindAlibabaV2018Files({absl::StrCat(SIM_TESTDATA, "/alibaba-v2018")}, any));
  EXPECT_TRUE(any);
  EXPECT_TRUE(ali.batch_task.present());
  EXPECT_TRUE(ali.machine_meta.present());
  EXPECT_THAT(
      FindAlibabaV2018Files({absl::StrCat(SIM_TESTDATA, "/openb/openb_pod_list_default.csv")}, any),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a table the importer reads")));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(OpenbInput openb,
                                FindOpenbFiles({absl::StrCat(SIM_TESTDATA, "/openb")}));
  EXPECT_THAT(openb.pod_lists, SizeIs(1));
  EXPECT_TRUE(openb.node_list.present());
}

}  // namespace
}  // namespace trimaran::sim
