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
}

}  // namespace
}  // namespace trimaran::sim
