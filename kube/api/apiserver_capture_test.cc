// Decodes responses captured from a real kube-apiserver 1.20.2 (testdata/apiserver-1.20/:
// GET pod, node, pod list, node list, a 404 Status and a watch stream), byte for byte
// as the apiserver served them, including every field the scheduler ignores.
#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_resources.h"

namespace trimaran::kube {
namespace {

std::string Capture(const std::string& name) {
  std::ifstream in(std::string(TRIMARAN_KUBE_API_TESTDATA_DIR) + "/apiserver-1.20/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

TEST(ApiserverCaptureTest, Pod) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(Capture("pod.json")));
  EXPECT_EQ(pod.metadata.name, "spark-exec-1");
  EXPECT_EQ(pod.metadata.namespace_name, "default");
  EXPECT_FALSE(pod.metadata.uid.empty());
  EXPECT_FALSE(pod.metadata.resource_version.empty());
  EXPECT_TRUE(pod.metadata.creation_timestamp.has_value());
  EXPECT_EQ(pod.metadata.labels.at("spark-role"), "executor");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  EXPECT_EQ(pod.spec.scheduler_name, "trimaran");
  ASSERT_EQ(pod.spec.init_containers.size(), 1u);
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  EXPECT_EQ(pod.spec.containers[0].ports.at(0).host_port, 7079);
  EXPECT_EQ(pod.spec.node_selector.at("topology.kubernetes.io/zone"), "us-east-1a");
  ASSERT_EQ(pod.spec.tolerations.size(), 3u) << "ours + the two DefaultTolerationSeconds adds";
  ASSERT_TRUE(pod.spec.affinity.has_value());
  EXPECT_EQ(pod.status.phase, PodPhase::kPending);
  // Requests: max(init 1 cpu / 1Gi, containers 2 cpu / 4Gi) = 2 cpu / 4Gi, 1 GPU.
  Resource r = ComputePodRequests(pod, {});
  EXPECT_EQ(r.milli_cpu, 2000);
  EXPECT_EQ(r.memory, int64_t{4} << 30);
  EXPECT_EQ(r.scalar.at("nvidia.com/gpu"), 1);
}

TEST(ApiserverCaptureTest, Node) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node, DecodeNode(Capture("node.json")));
  EXPECT_EQ(node.metadata.name, "node-a");
  EXPECT_EQ(node.metadata.labels.at("topology.kubernetes.io/zone"), "us-east-1a");
  // Our taint plus the not-ready taint added by TaintNodesByCondition.
  ASSERT_GE(node.spec.taints.size(), 1u);
  Resource alloc = Resource::FromResourceList(node.status.allocatable);
  EXPECT_EQ(alloc.milli_cpu, 31500);
  EXPECT_EQ(alloc.memory, int64_t{125} << 30);
  EXPECT_EQ(alloc.allowed_pod_number, 110);
  EXPECT_EQ(alloc.scalar.at("nvidia.com/gpu"), 4);
  ASSERT_EQ(node.status.addresses.size(), 2u);
  EXPECT_EQ(node.status.addresses[0].address, "10.0.1.17");
}

TEST(ApiserverCaptureTest, Lists) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList pods, DecodePodList(Capture("pod_list.json")));
  EXPECT_EQ(pods.items.size(), 2u);
  EXPECT_FALSE(pods.metadata.resource_version.empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeList nodes, DecodeNodeList(Capture("node_list.json")));
  EXPECT_EQ(nodes.items.size(), 1u);
}

TEST(ApiserverCaptureTest, NotFoundStatus) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ApiStatus s, DecodeStatus(Capture("status_not_found.json")));
  EXPECT_EQ(s.code, 404);
  EXPECT_EQ(s.reason, "NotFound");
  EXPECT_EQ(s.message, "pods \"nope\" not found");
}

TEST(ApiserverCaptureTest, WatchStream) {
  std::string stream = Capture("pod_watch.jsonl");
  std::vector<std::string> names;
  for (absl::string_view line : absl::StrSplit(stream, '\n', absl::SkipEmpty())) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Pod> ev,
                                  DecodePodWatchEvent(std::string_view(line.data(), line.size())));
    EXPECT_EQ(ev.type, WatchEventType::kAdded);
    names.push_back(ev.object.metadata.name);
  }
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("web", "spark-exec-1"));
}

}  // namespace
}  // namespace trimaran::kube
