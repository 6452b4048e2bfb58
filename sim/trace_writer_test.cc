#include "sim/trace_writer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(FormatPodsCsv, WritesRecordedColumnsOnlyWhenSet) {
  TracePod plain;
  plain.name = "a";
  plain.creation_time = 1.5;
  plain.duration = 60;
  plain.cpu_milli = 500;
  plain.memory_mib = 1024;
  const std::string csv = FormatPodsCsv({plain});
  EXPECT_THAT(csv, StartsWith("name,creation_time,duration,deletion_time,cpu_milli,memory_mib,"
                              "priority,group,role,cpu_use_milli,memory_use_mib,usage\n"
                              "a,1.500,60,,500,1024,0,,,,,\n"));
  EXPECT_THAT(csv, Not(HasSubstr("num_gpu")));
}

TEST(FormatPodsCsv, RoundTripsEveryField) {
  TracePod p;
  p.name = "j_1.R3_1_2.ins_4";
  p.creation_time = 1300;
  p.deletion_time = 1390.25;
  p.cpu_milli = 2000;
  p.memory_mib = 4640;
  p.priority = -3;
  p.group = "j_1";
  p.role = "R3_1_2";
  p.labels = {{"pod_phase", "Running"}, {"tier", "batch"}};
  p.cpu_use_milli = 1800;
  p.memory_use_mib = 3932;
  p.usage = {{0, 100, 200}, {30.5, 400, 800}};
  p.cpu_limit_milli = 4000;
  p.cpu_use_max_milli = 2100;
  p.num_gpu = 2;
  p.gpu_milli = 1000;
  p.gpu_spec = "V100M16|V100M32";
  p.qos = "BE";
  p.depends_on = {"j_1/M1", "j_1/M2_1"};
  p.orig_node = "m_3";
  p.scheduled_time = 1301;
  TracePod q;
  q.name = "b";
  q.cpu_milli = 1;
  q.memory_mib = 1;
  absl::StatusOr<std::vector<TracePod>> back = ParsePodsCsv(FormatPodsCsv({q, p}), "pods.csv");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  const TracePod& r = (*back)[1];
  EXPECT_EQ(r.name, p.name);
  EXPECT_EQ(r.creation_time, p.creation_time);
  EXPECT_EQ(r.deletion_time, p.deletion_time);
  EXPECT_EQ(r.cpu_milli, p.cpu_milli);
  EXPECT_EQ(r.memory_mib, p.memory_mib);
  EXPECT_EQ(r.priority, p.priority);
  EXPECT_EQ(r.group, p.group);
  EXPECT_EQ(r.role, p.role);
  EXPECT_EQ(r.labels, p.labels);
  EXPECT_EQ(r.cpu_use_milli, p.cpu_use_milli);
  EXPECT_EQ(r.memory_use_mib, p.memory_use_mib);
  EXPECT_EQ(r.usage, p.usage);
  EXPECT_EQ(r.cpu_limit_milli, p.cpu_limit_milli);
  EXPECT_EQ(r.cpu_use_max_milli, p.cpu_use_max_milli);
  EXPECT_EQ(r.num_gpu, p.num_gpu);
  EXPECT_EQ(r.gpu_milli, p.gpu_milli);
  EXPECT_EQ(r.gpu_spec, p.gpu_spec);
  EXPECT_EQ(r.qos, p.qos);
  EXPECT_EQ(r.depends_on, p.depends_on);
  EXPECT_EQ(r.orig_node, p.orig_node);
  EXPECT_EQ(r.scheduled_time, p.scheduled_time);
  // The other pod's recorded cells are empty, hence unset.
  EXPECT_FALSE((*back)[0].scheduled_time.has_value());
  EXPECT_TRUE((*back)[0].depends_on.empty());
}

TEST(FormatClusterYaml, RoundTripsThroughTheParser) {
  ClusterSpec spec = DefaultClusterSpec();
  spec.groups[0].labels = {{"trimaran.io/gpu-model", "V100M32"}};
  spec.groups[0].min = 1;
  spec.groups[0].initial = 3;
  spec.groups[0].max = 7;
  spec.groups[0].startup_delay = 90.5;
  spec.autoscaler.expander = Expander::kPrice;
  spec.autoscaler.consolidation = Consolidation::kWhenEmpty;
  spec.autoscaler.scale_down_utilization_threshold = 0.65;
  spec.autoscaler.max_nodes_per_scale_up = 12;
  absl::StatusOr<ClusterSpec> back = ParseClusterYaml(FormatClusterYaml(spec), "g.yaml");
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << FormatClusterYaml(spec);
  ASSERT_EQ(back->groups.size(), 1u);
  const NodeGroup& g = back->groups[0];
  EXPECT_EQ(g.name, "default");
  EXPECT_EQ(g.instance_type, "m5.xlarge");
  EXPECT_EQ(g.cpu_milli, 4000);
  EXPECT_EQ(g.memory_mib, 16384);
  EXPECT_EQ(g.pods, 110);
  EXPECT_DOUBLE_EQ(g.price_per_hour, 0.192);
  EXPECT_EQ(g.min, 1);
  EXPECT_EQ(g.initial, 3);
  EXPECT_EQ(g.max, 7);
  EXPECT_EQ(g.startup_delay, 90.5);
  EXPECT_EQ(g.labels, spec.groups[0].labels);
  EXPECT_EQ(back->autoscaler.expander, Expander::kPrice);
  EXPECT_EQ(back->autoscaler.consolidation, Consolidation::kWhenEmpty);
  EXPECT_DOUBLE_EQ(back->autoscaler.scale_down_utilization_threshold, 0.65);
  EXPECT_EQ(back->autoscaler.max_nodes_per_scale_up, 12);
}

}  // namespace
}  // namespace trimaran::sim
