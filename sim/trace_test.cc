#include "sim/trace.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;

TEST(ParsePodsCsv, ReadsColumnsInAnyOrderAndSortsByArrival) {
  const char* text =
      "# comment\n"
      "cpu_milli,name,memory_mib,creation_time,duration,priority,labels,usage,scheduler_name\n"
      "500,b,1024,20,60,5,app=x;tier=web,0:100:200;30:400:800,ignored\n"
      "\n"
      "1000,a,2048,10,,,,,\n";
  absl::StatusOr<std::vector<TracePod>> pods = ParsePodsCsv(text, "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].name, "a");
  EXPECT_EQ((*pods)[0].line, 5);
  EXPECT_FALSE((*pods)[0].duration.has_value());
  const TracePod& b = (*pods)[1];
  EXPECT_EQ(b.cpu_milli, 500);
  EXPECT_EQ(b.memory_mib, 1024);
  EXPECT_EQ(b.creation_time, 20);
  EXPECT_EQ(b.duration, 60);
  EXPECT_EQ(b.priority, 5);
  EXPECT_EQ(b.labels.at("tier"), "web");
  ASSERT_EQ(b.usage.size(), 2u);
  EXPECT_EQ(b.usage[1], (UsagePoint{30, 400, 800}));
}

TEST(ParsePodsCsv, ErrorsNameTheLine) {
  EXPECT_THAT(ParsePodsCsv("name,creation_time,cpu_milli,memory_mib\na,0,x,1\n", "p.csv")
                  .status()
                  .message(),
              HasSubstr("p.csv:2: cpu_milli: not a non-negative integer: \"x\""));
  EXPECT_THAT(
      ParsePodsCsv("name,creation_time,cpu_milli,memory_mib,gpu\n", "p.csv").status().message(),
      HasSubstr("p.csv:1: unknown column \"gpu\""));
  EXPECT_THAT(ParsePodsCsv("name,creation_time,cpu_milli\n", "p.csv").status().message(),
              HasSubstr("missing required column \"memory_mib\""));
  EXPECT_THAT(ParsePodsCsv("name,creation_time,cpu_milli,memory_mib\na,0,1,1\na,1,1,1\n", "p.csv")
                  .status()
                  .message(),
              HasSubstr("p.csv:3: name: duplicate pod \"a\""));
  EXPECT_THAT(
      ParsePodsCsv("name,creation_time,cpu_milli,memory_mib\na,0,1\n", "p.csv").status().message(),
      HasSubstr("p.csv:2: expected 4 cells, got 3"));
  EXPECT_THAT(ParsePodsCsv("name,creation_time,cpu_milli,memory_mib,deletion_time,duration\n"
                           "a,0,1,1,5,5\n",
                           "p.csv")
                  .status()
                  .message(),
              HasSubstr("give one, not both"));
}

TEST(ParsePodsJsonl, ReadsTheSameKeys) {
  const char* text =
      R"({"name":"d","creation_time":5,"deletion_time":100,"cpu_milli":250,"memory_mib":512,)"
      R"("group":"job1","role":"driver","labels":{"a":"b"},"usage":[{"t":0,"cpu_milli":100,"memory_mib":50}]})"
      "\n";
  absl::StatusOr<std::vector<TracePod>> pods = ParsePodsJsonl(text, "pods.jsonl");
  ASSERT_TRUE(pods.ok()) << pods.status();
  ASSERT_EQ(pods->size(), 1u);
  EXPECT_EQ((*pods)[0].deletion_time, 100);
  EXPECT_EQ((*pods)[0].group, "job1");
  EXPECT_EQ((*pods)[0].role, "driver");
  EXPECT_EQ((*pods)[0].labels.at("a"), "b");
  EXPECT_EQ((*pods)[0].usage.size(), 1u);
}

TEST(ParsePodsJsonl, ErrorsNameTheLine) {
  EXPECT_THAT(ParsePodsJsonl("{\"name\":\"a\",\"creation_time\":0,\"cpu_milli\":1,\"memory_mib\":1}"
                             "\n{bad\n",
                             "x.jsonl")
                  .status()
                  .message(),
              HasSubstr("x.jsonl:2: invalid JSON"));
  EXPECT_THAT(ParsePodsJsonl("{\"name\":\"a\",\"cpu_milli\":1,\"memory_mib\":1}\n", "x.jsonl")
                  .status()
                  .message(),
              HasSubstr("x.jsonl:1: creation_time: required"));
  EXPECT_THAT(ParsePods("", "x.txt").status().message(), HasSubstr("unknown pods format"));
}

TEST(TracePod, UsageIsAStepFunctionDefaultingToConstantsThenRequests) {
  TracePod p;
  p.cpu_milli = 1000;
  p.memory_mib = 100;
  EXPECT_EQ(p.UsageAt(5).cpu_milli, 1000);
  p.cpu_use_milli = 300;
  EXPECT_EQ(p.UsageAt(5).cpu_milli, 300);
  EXPECT_EQ(p.UsageAt(5).memory_mib, 100);
  p.usage = {{10, 50, 60}, {20, 70, 80}};
  EXPECT_EQ(p.UsageAt(0).cpu_milli, 300);  // before the profile starts: the constants
  EXPECT_EQ(p.UsageAt(10).cpu_milli, 50);
  EXPECT_EQ(p.UsageAt(19.9).cpu_milli, 50);
  EXPECT_EQ(p.UsageAt(25).memory_mib, 80);
}

TEST(ParseClusterYaml, ReadsGroupsAndAutoscaler) {
  const char* text = R"(nodeGroups:
- name: small
  instanceType: m5.large
  cpuMilli: 2000
  memoryMiB: 8192
  pricePerHour: 0.096
  min: 1
  max: 10
  startupDelay: 60
- name: big
  cpuMilli: 8000
  memoryMiB: 32768
  pricePerHour: 0.384
  max: 5
  initial: 2
autoscaler:
  expander: price
  scaleDownUnneededTime: 300
)";
  absl::StatusOr<ClusterSpec> spec = ParseClusterYaml(text, "g.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->groups.size(), 2u);
  EXPECT_EQ(spec->groups[0].initial, 1);  // defaults to min
  EXPECT_EQ(spec->groups[0].startup_delay, 60);
  EXPECT_EQ(spec->groups[1].instance_type, "big");
  EXPECT_EQ(spec->groups[1].startup_delay, 180);
  EXPECT_EQ(spec->groups[1].initial, 2);
  EXPECT_EQ(spec->autoscaler.expander, Expander::kPrice);
  EXPECT_EQ(spec->autoscaler.scale_down_unneeded_time, 300);
  EXPECT_EQ(spec->autoscaler.scale_down_utilization_threshold, 0.5);  // CA default
  EXPECT_EQ(spec->autoscaler.scale_down_delay_after_add, 600);
}

TEST(ParseClusterYaml, BackgroundUsage) {
  absl::StatusOr<ClusterSpec> spec = ParseClusterYaml(
      "nodeGroups:\n- {name: a, cpuMilli: 8000, memoryMiB: 1024, max: 1, backgroundCpuMilli: "
      "1500, backgroundMemoryMiB: 256}\n- {name: b, cpuMilli: 8000, memoryMiB: 1024, max: 1}\n",
      "g.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->groups[0].background_cpu_milli, 1500);
  EXPECT_EQ(spec->groups[0].background_memory_mib, 256);
  EXPECT_EQ(spec->groups[1].background_cpu_milli, 0);
  EXPECT_EQ(spec->groups[1].background_memory_mib, 0);
  EXPECT_THAT(ParseClusterYaml("nodeGroups:\n- {name: a, cpuMilli: 1, memoryMiB: 1, max: 1, "
                               "backgroundCpuMilli: -1}\n",
                               "g.yaml")
                  .status()
                  .message(),
              HasSubstr("must not be negative"));
}

TEST(ParseClusterYaml, ErrorsNameTheLine) {
  EXPECT_THAT(
      ParseClusterYaml("nodeGroups:\n- name: a\n  cpuMilli: x\n", "g.yaml").status().message(),
      HasSubstr("g.yaml:3: cpuMilli: invalid value \"x\""));
  EXPECT_THAT(ParseClusterYaml("nodeGroups:\n- name: a\n  cpu: 1\n", "g.yaml").status().message(),
              HasSubstr("g.yaml:3: nodeGroups[]: unknown key \"cpu\""));
  EXPECT_THAT(ParseClusterYaml(
                  "nodeGroups:\n- {name: a, cpuMilli: 1, memoryMiB: 1, min: 3, max: 2}\n", "g.yaml")
                  .status()
                  .message(),
              HasSubstr("need 0 <= min <= max"));
  EXPECT_THAT(ParseClusterYaml("nodeGroups:\n- {name: a, cpuMilli: 1, memoryMiB: 1, max: 2}\n"
                               "autoscaler: {expander: cheapest}\n",
                               "g.yaml")
                  .status()
                  .message(),
              HasSubstr("g.yaml:3: expander: unknown \"cheapest\""));
}

}  // namespace
}  // namespace trimaran::sim
