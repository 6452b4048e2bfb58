#include "common/stats/process_metrics.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::stats {
namespace {

using ::testing::HasSubstr;

TEST(ProcessMetricsTest, ParsesProcStatWithAWeirdCommand) {
  // Fields 14/15 utime/stime = 250/150 ticks, 22 starttime = 1000 ticks, 23 vsize,
  // 24 rss = 300 pages; comm holds ") (" to trip a naive split.
  const std::string stat =
      "4242 (a) (b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 4 0 1000 "
      "123456789 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
  std::optional<ProcessStats> s = ParseProcStat(stat, 100, 4096, 1.7e9);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->cpu_seconds, 4.0);
  EXPECT_DOUBLE_EQ(s->virtual_bytes, 123456789.0);
  EXPECT_DOUBLE_EQ(s->resident_bytes, 300.0 * 4096);
  EXPECT_DOUBLE_EQ(s->start_time_seconds, 1.7e9 + 10.0);
  EXPECT_FALSE(ParseProcStat("garbage", 100, 4096, 0).has_value());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2 3", 100, 4096, 0).has_value());
}

TEST(ProcessMetricsTest, ExportsLiveValues) {
  Registry registry;
  RegisterProcessMetrics(registry);
  RegisterBuildInfo(registry, "trimaran_");
  const std::string text = registry.PrometheusText();
  for (const char* name : {"process_cpu_seconds_total ", "process_resident_memory_bytes ",
                           "process_virtual_memory_bytes ", "process_start_time_seconds ",
                           "process_open_fds ", "process_max_fds "}) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("\n", name))) << name;
  }
  EXPECT_THAT(text, HasSubstr("# TYPE process_cpu_seconds_total counter"));
  EXPECT_THAT(text, HasSubstr("trimaran_build_info{version=\""));
  std::optional<ProcessStats> s = ReadProcessStats();
  ASSERT_TRUE(s.has_value());
  EXPECT_GT(s->resident_bytes, 1 << 20);
  EXPECT_GT(s->start_time_seconds, 1.6e9);  // after 2020
}

}  // namespace
}  // namespace trimaran::stats
