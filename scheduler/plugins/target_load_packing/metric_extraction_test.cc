#include "scheduler/plugins/target_load_packing/metric_extraction.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::sched::plugins::tlp {
namespace {

lw::Metric M(absl::string_view type, absl::string_view op, double v) {
  return lw::Metric{"", std::string(type), std::string(op), "", v};
}

TEST(MetricExtractionTest, TargetLoadPackingValue) {
  const std::vector<lw::Metric> metrics = {M("CPU", "AVG", 1), M("CPU", "Latest", 2),
                                           M("CPU", "", 3)};
  EXPECT_EQ(TargetLoadPackingValue(metrics, "CPU"), 2);
  const std::vector<lw::Metric> std_only = {M("CPU", "STD", 1)};
  EXPECT_FALSE(TargetLoadPackingValue(std_only, "CPU").has_value());
}

TEST(MetricExtractionTest, ExtractNodeLoad) {
  const std::vector<lw::Metric> metrics = {M("Memory", "Latest", 40), M("CPU", "AVG", 10),
                                           M("Memory", "AVG", 30)};
  const NodeLoad load = ExtractNodeLoad(metrics);
  EXPECT_EQ(load.cpu, 10);
  EXPECT_EQ(load.memory, 30);
  EXPECT_FALSE(ExtractNodeLoad({}).cpu.has_value());
}

}  // namespace
}  // namespace trimaran::sched::plugins::tlp
