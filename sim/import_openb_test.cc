#include "sim/import_openb.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/plugins/registry.h"
#include "sim/simulator.h"
#include "sim/trace_writer.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

TraceFile Load(const std::string& file) {
  const std::string path = std::string(SIM_TESTDATA) + "/openb/" + file;
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return TraceFile{path, buffer.str()};
}

OpenbInput TestdataInput() {
  return OpenbInput{.pod_lists = {Load("openb_pod_list_default.csv")},
                    .node_list = Load("openb_node_list_gpu_node.csv")};
}

std::map<std::string, TracePod> ByName(const std::vector<TracePod>& pods) {
  std::map<std::string, TracePod> out;
  for (const TracePod& p : pods) out[p.name] = p;
  return out;
}

TEST(ImportOpenb, MapsPodsNearlyAsIs) {
  absl::StatusOr<ImportedTrace> t = ImportOpenb(TestdataInput(), {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, TracePod> pods = ByName(t->pods);
  ASSERT_TRUE(pods.contains("openb-pod-0004"));
  const TracePod& p = pods["openb-pod-0004"];
  EXPECT_EQ(p.cpu_milli, 16000);
  EXPECT_EQ(p.memory_mib, 32768);
  EXPECT_EQ(p.num_gpu, 1);
  EXPECT_EQ(p.gpu_milli, 1000);
  EXPECT_EQ(p.gpu_spec, "V100M16|V100M32");
  EXPECT_EQ(p.qos, "LS");
  EXPECT_EQ(p.labels.at("pod_phase"), "Running");
  EXPECT_EQ(p.creation_time, 1700);
  EXPECT_EQ(p.deletion_time, 9000);
  EXPECT_FALSE(p.duration.has_value());
  EXPECT_EQ(p.scheduled_time, 1730);
  // Created and scheduled at 0: scheduled (0 is a time here).
  EXPECT_EQ(pods["openb-pod-0000"].scheduled_time, 0);
  EXPECT_EQ(pods["openb-pod-0000"].deletion_time, 12537);
  // Never scheduled: kept, without a scheduled_time, with its recorded deletion.
  EXPECT_FALSE(pods["openb-pod-0096"].scheduled_time.has_value());
  EXPECT_EQ(pods["openb-pod-0096"].deletion_time, 2177);
  EXPECT_EQ(t->adjusted["pod_list: never scheduled in the recording, kept as demand"], 2);
  // deletion_time 0 (created at 2300) and empty: runs to the end.
  EXPECT_FALSE(pods["openb-pod-0099"].deletion_time.has_value());
  EXPECT_FALSE(pods["openb-pod-0101"].deletion_time.has_value());
  EXPECT_EQ(t->adjusted["pod_list: deletion_time 0, pod runs to the end"], 1);
  // CPU-only pod.
  EXPECT_EQ(pods["openb-pod-0003"].num_gpu, 0);
  EXPECT_THAT(pods["openb-pod-0003"].gpu_spec, IsEmpty());
  // Skipped: deletion before creation, a repeated name (the first row is kept).
  EXPECT_FALSE(pods.contains("openb-pod-0100"));
  EXPECT_EQ(t->skipped["pod_list: deletion_time before creation_time"], 1);
  EXPECT_EQ(t->skipped["pod_list: duplicate pod name"], 1);
  EXPECT_EQ(pods["openb-pod-0001"].creation_time, 427);
  EXPECT_EQ(t->pods.size(), 12u);
  EXPECT_EQ(t->headers.size(), 2u);
}

TEST(ImportOpenb, EndFromBindAndSkipUnscheduled) {
  OpenbOptions o;
  o.end = OpenbOptions::EndMode::kFromBind;
  o.skip_unscheduled = true;
  absl::StatusOr<ImportedTrace> t = ImportOpenb(TestdataInput(), o);
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, TracePod> pods = ByName(t->pods);
  EXPECT_EQ(pods["openb-pod-0004"].duration, 9000 - 1730);
  EXPECT_FALSE(pods["openb-pod-0004"].deletion_time.has_value());
  EXPECT_FALSE(pods.contains("openb-pod-0096"));
  EXPECT_EQ(t->skipped["pod_list: never scheduled (--skip-unscheduled)"], 2);
  EXPECT_EQ(t->pods.size(), 10u);
}

TEST(ImportOpenb, NodesBecomeGroupsWithTheirGpus) {
  absl::StatusOr<ImportedTrace> t = ImportOpenb(TestdataInput(), {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, NodeGroup> groups;
  for (const NodeGroup& g : t->cluster.groups) groups[g.name] = g;
  ASSERT_EQ(groups.size(), 5u);
  ASSERT_TRUE(groups.contains("openb-32c-256g"));
  EXPECT_EQ(groups["openb-32c-256g"].initial, 2);
  EXPECT_EQ(groups["openb-32c-256g"].cpu_milli, 32000);
  EXPECT_EQ(groups["openb-32c-256g"].memory_mib, 262144);
  EXPECT_THAT(groups["openb-32c-256g"].labels, IsEmpty());
  ASSERT_TRUE(groups.contains("openb-96c-768g-8xv100m32"));
  const NodeGroup& v100 = groups["openb-96c-768g-8xv100m32"];
  EXPECT_EQ(v100.initial, 2);
  EXPECT_EQ(v100.max, 2);
  EXPECT_EQ(v100.labels.at("trimaran.io/gpu-count"), "8");
  EXPECT_EQ(v100.labels.at("trimaran.io/gpu-model"), "V100M32");
  EXPECT_DOUBLE_EQ(v100.price_per_hour, 96 * 0.048);
  EXPECT_TRUE(groups.contains("openb-128c-1024g-1xa10"));
}

TEST(ImportOpenb, HeaderlessAndReorderedFiles) {
  OpenbInput in;
  // No header: the documented column order.
  in.pod_lists.push_back({"pods_a.csv", "p1,1000,2048,0,0,,BE,Running,10,20,11\n"});
  // A header in another order: by name.
  in.pod_lists.push_back({"pods_b.csv",
                          "creation_time,name,memory_mib,cpu_milli,num_gpu,gpu_milli,gpu_spec,"
                          "qos,pod_phase,deletion_time,scheduled_time\n"
                          "30,p2,4096,500,0,0,,LS,Running,40,31\n"});
  absl::StatusOr<ImportedTrace> t = ImportOpenb(in, {});
  ASSERT_TRUE(t.ok()) << t.status();
  std::map<std::string, TracePod> pods = ByName(t->pods);
  EXPECT_EQ(pods["p1"].cpu_milli, 1000);
  EXPECT_EQ(pods["p1"].scheduled_time, 11);
  EXPECT_EQ(pods["p2"].cpu_milli, 500);
  EXPECT_EQ(pods["p2"].memory_mib, 4096);
  EXPECT_EQ(pods["p2"].creation_time, 30);
  EXPECT_EQ(t->headers.size(), 1u);
}

TEST(ImportOpenb, MalformedRowsNameTheFileAndLine) {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  auto error = [&](const std::string& row) {
    OpenbInput in;
    in.pod_lists.push_back({"pods.csv", header + "ok,1,1,0,0,,BE,Running,1,2,1\n" + row});
    return std::string(ImportOpenb(in, {}).status().message());
  };
  EXPECT_THAT(error("p,abc,10,0,0,,BE,Running,1,2,1\n"),
              HasSubstr("pods.csv:3: cpu_milli: not a number: \"abc\""));
  EXPECT_THAT(error("p,1.5,10,0,0,,BE,Running,1,2,1\n"),
              HasSubstr("pods.csv:3: cpu_milli: not an integer: \"1.5\""));
  EXPECT_THAT(error("p,-1,10,0,0,,BE,Running,1,2,1\n"),
              HasSubstr("pods.csv:3: cpu_milli: negative: -1"));
  EXPECT_THAT(error("p,1,10,0,0,,BE,Running,,2,1\n"),
              HasSubstr("pods.csv:3: creation_time: required"));
  EXPECT_THAT(error("p,1,10,0,0,,BE,Running,1,2\n"),
              HasSubstr("pods.csv:3: expected 11 columns as the header, got 10"));
  OpenbInput nodes;
  nodes.pod_lists.push_back({"pods.csv", header});
  nodes.node_list = {"nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,96000,lots,8,G2\n"};
  EXPECT_THAT(ImportOpenb(nodes, {}).status().message(),
              HasSubstr("nodes.csv:2: memory_mib: not a number: \"lots\""));
}

TEST(ImportOpenb, RoundTripsThroughTheTraceFormatAndSimulates) {
  absl::StatusOr<ImportedTrace> t = ImportOpenb(TestdataInput(), {});
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
    EXPECT_EQ(a.deletion_time, b.deletion_time);
    EXPECT_EQ(a.cpu_milli, b.cpu_milli);
    EXPECT_EQ(a.memory_mib, b.memory_mib);
    EXPECT_EQ(a.num_gpu, b.num_gpu);
    EXPECT_EQ(a.gpu_milli, b.gpu_milli);
    EXPECT_EQ(a.gpu_spec, b.gpu_spec);
    EXPECT_EQ(a.qos, b.qos);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.scheduled_time, b.scheduled_time);
  }
  absl::StatusOr<ClusterSpec> cluster =
      ParseClusterYaml(FormatClusterYaml(t->cluster), "node-groups.yaml");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EXPECT_EQ(cluster->groups.size(), 5u);
  EXPECT_EQ(cluster->groups[0].labels, t->cluster.groups[0].labels);

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
  EXPECT_EQ(r->pods, 12);
  EXPECT_EQ(r->scheduled + r->never_scheduled, 12);
  EXPECT_GE(r->scheduled, 10);
}

}  // namespace
}  // namespace trimaran::sim
