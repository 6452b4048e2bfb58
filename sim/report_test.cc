#include "sim/report.h"

#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace trimaran::sim {
namespace {

TEST(FormatSimReportJson, WritesProfilesAndDeltasAgainstTheBaseline) {
  ClusterSpec cluster = DefaultClusterSpec();
  ProfileResult base;
  base.profile = "default";
  base.cost = 10;
  base.peak_nodes = 4;
  base.timeline.push_back({0, 1, 0, 0, 0.192, 0.1, 0.5, 0.25});
  base.compaction.trials = 2;
  base.compaction.instants.push_back({3600, "peak", 4, 8, {2, 3}});
  SummarizeCompaction(base.compaction);
  ProfileResult other;
  other.profile = "binpack";
  other.cost = 7.5;
  other.peak_nodes = 3;
  const std::string json = FormatSimReportJson({"trace.csv", "", 7, &cluster, {base, other}});
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  const rapidjson::Value& root = doc;
  EXPECT_EQ(root["schemaVersion"].GetInt(), kSimReportSchemaVersion);
  EXPECT_EQ(root["seed"].GetUint64(), 7u);
  EXPECT_STREQ(root["baseline"].GetString(), "default");
  EXPECT_STREQ(root["autoscaler"]["expander"].GetString(), "least-waste");
  const rapidjson::Value& profiles = root["profiles"];
  ASSERT_EQ(profiles.Size(), 2u);
  EXPECT_FALSE(profiles[0].HasMember("deltaVsBaseline"));
  EXPECT_EQ(profiles[0]["timeline"].Size(), 1u);
  EXPECT_DOUBLE_EQ(profiles[0]["timeline"][0]["cpuUsed"].GetDouble(), 0.25);
  EXPECT_DOUBLE_EQ(profiles[1]["deltaVsBaseline"]["cost"].GetDouble(), -2.5);
  EXPECT_EQ(profiles[1]["deltaVsBaseline"]["peakNodes"].GetInt(), -1);
  const rapidjson::Value& compaction = profiles[0]["compaction"];
  EXPECT_EQ(compaction["trials"].GetInt(), 2);
  EXPECT_DOUBLE_EQ(compaction["nodes"]["min"].GetDouble(), 2);
  EXPECT_DOUBLE_EQ(compaction["nodes"]["max"].GetDouble(), 3);
  EXPECT_DOUBLE_EQ(compaction["ratio"]["p50"].GetDouble(), 0.5);
  EXPECT_STREQ(compaction["instants"][0]["why"].GetString(), "peak");
  EXPECT_EQ(compaction["instants"][0]["compacted"].Size(), 2u);
  // The other profile had no instants: its p50 is 0, 0.5 below the baseline's.
  EXPECT_DOUBLE_EQ(profiles[1]["deltaVsBaseline"]["compactionRatioP50"].GetDouble(), -0.5);
}

}  // namespace
}  // namespace trimaran::sim
