#include "sim/import_alibaba_v2018.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/simulator.h"
#include "sim/trace_writer.h"

namespace trimaran::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TraceFile Load(const std::string& table) {
  const std::string path = std::string(SIM_TESTDATA) + "/alibaba-v2018/" + table + ".csv";
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  EXPECT_TRUE(in.good() || in.eof()) << path;
  return TraceFile{path, buffer.str()};
}

AlibabaV2018Input TestdataInput() {
  return AlibabaV2018Input{.batch_task = Load("batch_task"),
                           .batch_instance = Load("batch_instance"),
                           .container_meta = Load("container_meta"),
                           .container_usage = Load("container_usage"),
                           .machine_meta = Load("machine_meta")};
}

std::map<std::string, TracePod> ByName(const std::vector<TracePod>& pods) {
  std::map<std::string, TracePod> out;
  for (const TracePod& p : pods) out[p.name] = p;
  return out;
}

TEST(ParseTaskDag, ReadsTheIndexAndTheDependencies) {
  ASSERT_TRUE(ParseTaskDag("M5_3_4").has_value());
  EXPECT_EQ(ParseTaskDag("M5_3_4")->index, 5);
  EXPECT_THAT(ParseTaskDag("M5_3_4")->depends_on, ElementsAre(3, 4));
  EXPECT_EQ(ParseTaskDag("M1")->index, 1);
  EXPECT_THAT(ParseTaskDag("M1")->depends_on, IsEmpty());
  EXPECT_THAT(ParseTaskDag("R4_2")->depends_on, ElementsAre(2));
  EXPECT_FALSE(ParseTaskDag("task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==").has_value());
  EXPECT_FALSE(ParseTaskDag("MergeTask").has_value());
  EXPECT_FALSE(ParseTaskDag("M2_").has_value());
  EXPECT_FALSE(ParseTaskDag("12").has_value());
}

TEST(ImportAlibabaV2018, MapsBatchInstancesFieldByField) {
  absl::StatusOr<ImportedTrace> t = ImportAlibabaV2018(TestdataInput(), {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, TracePod> pods = ByName(t->pods);
  ASSERT_TRUE(pods.contains("j_1.M1.ins_1"));
  const TracePod& p = pods["j_1.M1.ins_1"];
  EXPECT_EQ(p.creation_time, 1000);
  EXPECT_EQ(p.duration, 60);
  EXPECT_FALSE(p.deletion_time.has_value());
  EXPECT_EQ(p.cpu_milli, 1000);          // plan_cpu 100 × 10
  EXPECT_EQ(p.memory_mib, 2320);         // 0.59 / 100 × 393216 = 2319.97
  EXPECT_EQ(p.cpu_use_milli, 855);       // cpu_avg 85.5 × 10
  EXPECT_EQ(p.cpu_use_max_milli, 1000);  // cpu_max 100 × 10
  EXPECT_EQ(p.memory_use_mib, 1612);     // mem_avg 0.41 → 1612.19
  EXPECT_EQ(p.group, "j_1");
  EXPECT_EQ(p.role, "M1");
  EXPECT_EQ(p.qos, "BE");
  EXPECT_EQ(p.orig_node, "m_1");
  EXPECT_EQ(p.scheduled_time, 1000);
  EXPECT_THAT(p.depends_on, IsEmpty());

  // The DAG: R3_1_2 waits for tasks 1 and 2 of its job.
  EXPECT_THAT(pods["j_1.R3_1_2.ins_4"].depends_on, ElementsAre("j_1/M1", "j_1/M2_1"));
  EXPECT_THAT(pods["j_1.M2_1.ins_3"].depends_on, ElementsAre("j_1/M1"));
  // M4_7: task 7 is not in batch_task; the edge is dropped and counted.
  EXPECT_THAT(pods["j_1.M4_7.ins_11"].depends_on, IsEmpty());
  EXPECT_EQ(t->adjusted["batch_instance: DAG dependency not in batch_task, edge dropped"], 1);
  // A retry of ins_2 (seq_no 2) gets its own name.
  ASSERT_TRUE(pods.contains("j_1.M1.ins_2.2"));
  EXPECT_EQ(pods["j_1.M1.ins_2.2"].creation_time, 1200);
  // mem_avg -1 (invalid): usage left to the request, counted.
  EXPECT_FALSE(pods["j_1.M2_1.ins_3"].memory_use_mib.has_value());
  EXPECT_EQ(pods["j_1.M2_1.ins_3"].cpu_use_milli, 450);
  EXPECT_EQ(t->adjusted["batch_instance: mem_avg invalid (-1, 101), usage left to the request"], 1);
  // Empty usage cells: unset. '=' of a random task name is replaced in the name.
  ASSERT_TRUE(pods.contains("j_2.task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw__.ins_5"));
  EXPECT_FALSE(pods["j_2.task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw__.ins_5"].cpu_use_milli.has_value());

  EXPECT_EQ(t->skipped["batch_instance: status not Terminated"], 3);
  EXPECT_EQ(
      t->skipped["batch_instance: start_time or end_time 0 or empty (outside the 8-day span)"], 1);
  EXPECT_EQ(t->skipped["batch_instance: end_time before start_time"], 1);
  EXPECT_EQ(t->skipped["batch_instance: task not in batch_task"], 1);
  EXPECT_EQ(t->skipped["batch_instance: task's plan_cpu or plan_mem invalid (empty, -1, 101)"], 1);
  // batch_task.csv has a header row; the other files have none.
  EXPECT_THAT(t->headers, ElementsAre(HasSubstr("batch_task.csv:1")));
}

TEST(ImportAlibabaV2018, MapsContainersAndTheirUsage) {
  absl::StatusOr<ImportedTrace> t = ImportAlibabaV2018(TestdataInput(), {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, TracePod> pods = ByName(t->pods);
  ASSERT_TRUE(pods.contains("c_1"));
  const TracePod& c1 = pods["c_1"];
  EXPECT_EQ(c1.creation_time, 0);  // the earliest row
  EXPECT_FALSE(c1.duration.has_value());
  EXPECT_FALSE(c1.deletion_time.has_value());
  EXPECT_EQ(c1.cpu_milli, 4000);
  EXPECT_EQ(c1.cpu_limit_milli, 4000);
  EXPECT_EQ(c1.memory_mib, 6134);  // 1.56 / 100 × 393216 = 6134.17
  EXPECT_EQ(c1.group, "app_1");
  EXPECT_EQ(c1.role, "service");
  EXPECT_EQ(c1.qos, "LS");
  EXPECT_EQ(c1.orig_node, "m_1");
  // Util relative to the request (default): 25 % of 4000, 50 % of 6134; the -1 point is
  // skipped.
  EXPECT_THAT(c1.usage, ElementsAre(UsagePoint{10, 1000, 3067}, UsagePoint{310, 1600, 3190}));
  // Times are from the container's creation (120).
  EXPECT_THAT(pods["c_2"].usage, ElementsAre(UsagePoint{10, 400, 1227}));
  EXPECT_EQ(pods["c_2"].cpu_limit_milli, 8000);
  EXPECT_THAT(pods["c_3"].usage, ElementsAre(UsagePoint{600, 4000, 3692}));
  EXPECT_FALSE(pods.contains("c_4"));  // mem_size 101
  EXPECT_EQ(t->skipped["container_meta: cpu_request or mem_size invalid (empty, 0, -1, 101)"], 1);
  EXPECT_EQ(t->skipped["container_usage: cpu or mem util empty or invalid (-1, 101)"], 2);
  EXPECT_EQ(t->skipped["container_usage: point before the container's first time_stamp"], 1);
  EXPECT_EQ(t->skipped["container_usage: container not imported from container_meta"], 1);
  EXPECT_EQ(t->pods.size(), 14u);  // 10 batch instances + 4 containers
  for (size_t i = 1; i < t->pods.size(); ++i) {
    EXPECT_LE(t->pods[i - 1].creation_time, t->pods[i].creation_time);
  }
}

TEST(ImportAlibabaV2018, UtilRelativeToTheMachine) {
  AlibabaV2018Options o;
  o.util_base = AlibabaV2018Options::UtilBase::kMachine;
  absl::StatusOr<ImportedTrace> t = ImportAlibabaV2018(TestdataInput(), o);
  ASSERT_TRUE(t.ok()) << t.status();
  // c_1 on m_1 (96 cores, 393216 MiB): 25 % → 24000 millicores, 50 % → 196608 MiB.
  EXPECT_EQ(ByName(t->pods)["c_1"].usage.front(), (UsagePoint{10, 24000, 196608}));
}

TEST(ImportAlibabaV2018, MachinesBecomeNodeGroupsByShape) {
  AlibabaV2018Options o;
  o.ref_mem_mib = 262144;
  absl::StatusOr<ImportedTrace> t = ImportAlibabaV2018(TestdataInput(), o);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->cluster.groups.size(), 2u);
  const NodeGroup& small = t->cluster.groups[0];  // m_3: 64 cores, mem_size 50
  EXPECT_EQ(small.name, "ali-64c-128g");
  EXPECT_EQ(small.cpu_milli, 64000);
  EXPECT_EQ(small.memory_mib, 131072);
  EXPECT_EQ(small.initial, 1);
  EXPECT_EQ(small.max, 1);
  EXPECT_EQ(small.min, 0);
  EXPECT_DOUBLE_EQ(small.price_per_hour, 64 * 0.048);
  const NodeGroup& big = t->cluster.groups[1];  // m_1, m_2, m_5 (m_1's later row ignored)
  EXPECT_EQ(big.name, "ali-96c-256g");
  EXPECT_EQ(big.initial, 3);
  EXPECT_EQ(t->skipped["machine_meta: invalid cpu_num or mem_size (-1, 101, 0)"], 1);  // m_4
}

TEST(ImportAlibabaV2018, MalformedRowsNameTheFileAndLine) {
  AlibabaV2018Input in;
  in.batch_task = {"batch_task.csv", "M1,1,j_1,1,Terminated,1,2,100,0.5\n"};
  in.batch_instance = {"batch_instance.csv",
                       "ins_1,M1,j_1,1,Terminated,1,2,m_1,1,1,10,20,0.1,0.2\n"
                       "ins_2,M1,j_1,1,Terminated,1,x2,m_1,1,1,10,20,0.1,0.2\n"};
  EXPECT_THAT(ImportAlibabaV2018(in, {}).status().message(),
              HasSubstr("batch_instance.csv:2: end_time: not a number: \"x2\""));
  in.batch_instance.text = "ins_1,M1,j_1,1,Terminated,1,2,m_1,1,1,10,20,0.1\n";
  EXPECT_THAT(ImportAlibabaV2018(in, {}).status().message(),
              HasSubstr("batch_instance.csv:1: expected 14 columns (instance_name, task_name"));
  in.batch_instance.text = "ins_1,M1,j_1,1,Terminated,1,2,m_1,1,1,10,20,0.1,0.2\n";
  in.batch_task.text = "\nM1,1,j_1,1,Terminated,1,2,1oo,0.5\n";
  EXPECT_THAT(ImportAlibabaV2018(in, {}).status().message(),
              HasSubstr("batch_task.csv:2: plan_cpu: not a number: \"1oo\""));
  in.batch_task.text = "M1,1,j_1,1,Terminated,1,2,100,0.5\nM1,1,j_1,1,Terminated,1,2,100,0.5\n";
  EXPECT_THAT(ImportAlibabaV2018(in, {}).status().message(),
              HasSubstr("batch_task.csv:2: task_name: duplicate task \"M1\" in job \"j_1\""));
  AlibabaV2018Input c;
  c.container_meta = {"container_meta.csv", "c_1,m_1,0,app_1,started,400,400,1.5\n"};
  c.container_usage = {"container_usage.csv", "c_1,m_1,10,2x,50\n"};
  EXPECT_THAT(ImportAlibabaV2018(c, {}).status().message(),
              HasSubstr("container_usage.csv:1: cpu_util_percent: not a number: \"2x\""));
  c.container_usage = {};
  c.machine_meta = {"machine_meta.csv", "m_1,0,1,A,ninety-six,100,USING\n"};
  EXPECT_THAT(ImportAlibabaV2018(c, {}).status().message(),
              HasSubstr("machine_meta.csv:1: cpu_num: not a number: \"ninety-six\""));
}

TEST(ImportAlibabaV2018, ChecksWhichTablesGoTogether) {
  AlibabaV2018Input in;
  in.batch_instance = Load("batch_instance");
  EXPECT_THAT(ImportAlibabaV2018(in, {}).status().message(), HasSubstr("go together"));
  EXPECT_THAT(ImportAlibabaV2018(AlibabaV2018Input{}, {}).status().message(), HasSubstr("no pods"));
}

// Import → write → the trace loader reads it back unchanged → the simulator runs it.
TEST(ImportAlibabaV2018, RoundTripsThroughTheTraceFormatAndSimulates) {
  absl::StatusOr<ImportedTrace> t = ImportAlibabaV2018(TestdataInput(), {});
  ASSERT_TRUE(t.ok()) << t.status();
  const std::string csv = FormatPodsCsv(t->pods);
  absl::StatusOr<std::vector<TracePod>> pods = ParsePodsCsv(csv, "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status() << "\n" << csv;
  ASSERT_EQ(pods->size(), t->pods.size());
  for (size_t i = 0; i < pods->size(); ++i) {
    const TracePod& a = t->pods[i];
    const TracePod& b = (*pods)[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.creation_time, b.creation_time);
    EXPECT_EQ(a.duration, b.duration);
    EXPECT_EQ(a.cpu_milli, b.cpu_milli);
    EXPECT_EQ(a.memory_mib, b.memory_mib);
    EXPECT_EQ(a.cpu_use_milli, b.cpu_use_milli);
    EXPECT_EQ(a.cpu_use_max_milli, b.cpu_use_max_milli);
    EXPECT_EQ(a.cpu_limit_milli, b.cpu_limit_milli);
    EXPECT_EQ(a.memory_use_mib, b.memory_use_mib);
    EXPECT_EQ(a.usage, b.usage);
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.role, b.role);
    EXPECT_EQ(a.qos, b.qos);
    EXPECT_EQ(a.depends_on, b.depends_on);
    EXPECT_EQ(a.orig_node, b.orig_node);
    EXPECT_EQ(a.scheduled_time, b.scheduled_time);
  }
  absl::StatusOr<ClusterSpec> cluster =
      ParseClusterYaml(FormatClusterYaml(t->cluster), "node-groups.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_EQ(cluster->groups.size(), t->cluster.groups.size());

  sched::Registry registry;
  ASSERT_TRUE(sched::plugins::RegisterInTreePlugins(registry).ok());
  absl::StatusOr<sched::config::SchedulerConfig> cfg = sched::config::ParseConfig(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n  - schedulerName: default-scheduler\n",
      "sched.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      sched::config::ExpandProfiles(*cfg, registry);
  ASSERT_TRUE(profiles.ok()) << profiles.status();
  absl::StatusOr<ProfileResult> r =
      Simulate(*pods, *cluster, profiles->front(), registry, SimOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pods, 14);
  // The recorded machines (4 × 64–96 cores) hold the whole small trace.
  EXPECT_EQ(r->scheduled, 14);
  EXPECT_EQ(r->never_scheduled, 0);
}

}  // namespace
}  // namespace trimaran::sim
