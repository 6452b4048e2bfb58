#include "sim/generator.h"

#include <map>
#include <set>

#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

TEST(GenerateSparkTrace, SameSeedSameTraceAndItRoundTripsThroughTheCsvParser) {
  GenOptions o;
  o.hours = 6;
  o.max_executors = 30;
  absl::StatusOr<std::vector<TracePod>> a = GenerateSparkTrace(o);
  absl::StatusOr<std::vector<TracePod>> b = GenerateSparkTrace(o);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok());
  const std::string csv = FormatPodsCsv(*a);
  EXPECT_EQ(csv, FormatPodsCsv(*b));
  o.seed = 2;
  EXPECT_NE(csv, FormatPodsCsv(*GenerateSparkTrace(o)));
  absl::StatusOr<std::vector<TracePod>> parsed = ParsePodsCsv(csv, "gen.csv");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), a->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*parsed)[i].name, (*a)[i].name);
    EXPECT_EQ((*parsed)[i].usage, (*a)[i].usage);
  }
}

TEST(GenerateSparkTrace, JobsHaveOneDriverAndSparkSizedExecutors) {
  GenOptions o;
  o.hours = 12;
  o.max_executors = 20;
  o.services = 2;
  o.service_replicas = 2;
  absl::StatusOr<std::vector<TracePod>> pods = GenerateSparkTrace(o);
  ASSERT_TRUE(pods.ok());
  std::map<std::string, int> drivers;
  std::map<std::string, int> executors;
  int services = 0;
  for (const TracePod& p : *pods) {
    if (p.role == "service") {
      ++services;
      EXPECT_FALSE(p.duration.has_value());  // runs the whole trace
    } else if (p.role == "driver") {
      ++drivers[p.group];
    } else {
      ASSERT_EQ(p.role, "executor");
      ++executors[p.group];
      EXPECT_TRUE(p.cpu_milli == 1000 || p.cpu_milli == 2000 || p.cpu_milli == 4000);
      // heap in [4, 16] GiB plus max(10 %, 384 MiB).
      const int64_t heap = p.memory_mib - std::max<int64_t>(p.memory_mib / 11, 384);
      EXPECT_GE(p.memory_mib, 4096 + 409);
      EXPECT_LE(p.memory_mib, 16384 + 1638);
      EXPECT_GT(heap, 0);
      ASSERT_FALSE(p.usage.empty());
    }
  }
  EXPECT_EQ(services, 4);
  EXPECT_GT(drivers.size(), 10u);  // ~6 apps/h over 12 h
  for (const auto& [group, n] : drivers) {
    EXPECT_EQ(n, 1);
    EXPECT_GE(executors[group], o.min_executors);
    EXPECT_LE(executors[group], o.max_executors);
  }
  o.max_executors = 0;
  EXPECT_FALSE(GenerateSparkTrace(o).ok());
}

}  // namespace
}  // namespace trimaran::sim
