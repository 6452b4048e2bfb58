#include "sim/html_report.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(FormatSimReportHtml, SelfContainedPageWithTableAndPlots) {
  ClusterSpec cluster = DefaultClusterSpec();
  ProfileResult base;
  base.profile = "default";
  base.cost = 10;
  base.timeline = {{0, 1, 0, 0, 0.192, 0.1, 0.5, 0.25}, {300, 3, 0, 5, 0.576, 0.4, 0.7, 0.5}};
  base.cpu_usage_histogram[3] = 4;
  base.compaction.instants.push_back({3600, "periodic", 4, 8, {2, 3}});
  SummarizeCompaction(base.compaction);
  ProfileResult other = base;
  other.profile = "<pack>";
  other.cost = 7.5;
  const std::string html = FormatSimReportHtml({"trace.csv", "", 1, &cluster, {base, other}});
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("&lt;pack&gt;"));  // escaped
  EXPECT_THAT(html, Not(HasSubstr("<pack>")));
  EXPECT_THAT(html, HasSubstr("(-2.50)"));  // the delta against the baseline
  EXPECT_THAT(html, HasSubstr("Nodes over time"));
  EXPECT_THAT(html, HasSubstr("<polyline"));
  EXPECT_THAT(html, HasSubstr("<rect"));
  EXPECT_THAT(html, HasSubstr("Cluster compaction"));
  EXPECT_THAT(html, HasSubstr("<td>0.500</td>"));  // compacted / actual p50: 2 of 4
  // Six plots, no external assets or scripts.
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, 6u);
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("href=")));
  EXPECT_THAT(html, Not(HasSubstr("http")));
}

}  // namespace
}  // namespace trimaran::sim
