// Decodes (and, for what the scheduler writes, re-encodes) responses captured from real
// kube-apiservers of the tested range, byte for byte as they served them, including every
// field the scheduler ignores: testdata/apiserver-1.37/ and testdata/apiserver-1.32/,
// written by tools/capture-apiserver.sh (tests/e2e/apiserver_capture_main.cc creates the
// same objects on both). What one minor drops (pod-level resources, resource claims, the
// resize status on 1.32) is asserted per minor: docs/compatibility.md.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_split.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_resources.h"

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;

class ApiserverCaptureTest : public ::testing::TestWithParam<std::string> {
 protected:
  const std::string& minor() const { return GetParam(); }
  bool Is137() const { return minor() == "1.37"; }

  std::string Capture(const std::string& name) const {
    std::ifstream in(std::string(TRIMARAN_KUBE_API_TESTDATA_DIR) + "/apiserver-" + minor() + "/" +
                     name);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_FALSE(ss.str().empty()) << minor() << "/" << name;
    return ss.str();
  }
};

TEST_P(ApiserverCaptureTest, VersionIsTheCapturedMinor) {
  EXPECT_THAT(Capture("version.json"), HasSubstr("\"gitVersion\": \"v" + minor() + "."));
}

TEST_P(ApiserverCaptureTest, PodWithEveryNewerSchedulingField) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(Capture("pod.json")));
  EXPECT_EQ(pod.metadata.name, "spark-exec-1");
  EXPECT_EQ(pod.metadata.namespace_name, "default");
  EXPECT_FALSE(pod.metadata.uid.empty());
  EXPECT_FALSE(pod.metadata.resource_version.empty());
  EXPECT_TRUE(pod.metadata.creation_timestamp.has_value());
  EXPECT_EQ(pod.spec.scheduler_name, "trimaran");
  // Scheduling gates (GA 1.30): kept by both.
  ASSERT_EQ(pod.spec.scheduling_gates.size(), 1u);
  EXPECT_EQ(pod.spec.scheduling_gates[0].name, "example.com/quota");
  // The sidecar (restartPolicy Always) and a plain init container.
  ASSERT_EQ(pod.spec.init_containers.size(), 2u);
  EXPECT_FALSE(IsRestartableInitContainer(pod.spec.init_containers[0]));
  EXPECT_TRUE(IsRestartableInitContainer(pod.spec.init_containers[1]));
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  EXPECT_EQ(pod.spec.containers[0].ports.at(0).host_port, 7079);
  ASSERT_EQ(pod.spec.tolerations.size(), 3u) << "ours + the two DefaultTolerationSeconds adds";

  // Affinity: namespaceSelector kept; matchLabelKeys / mismatchLabelKeys kept and merged
  // by the apiserver into the label selector (spark-app In [pi] / NotIn [pi]).
  ASSERT_TRUE(pod.spec.affinity.has_value());
  ASSERT_TRUE(pod.spec.affinity->pod_affinity.has_value());
  const PodAffinityTerm& required = pod.spec.affinity->pod_affinity->required.at(0);
  ASSERT_TRUE(required.namespace_selector.has_value());
  EXPECT_EQ(required.namespace_selector->match_labels.at("team"), "data");
  EXPECT_THAT(required.match_label_keys, ::testing::ElementsAre("spark-app"));
  ASSERT_TRUE(required.label_selector.has_value());
  ASSERT_EQ(required.label_selector->match_expressions.size(), 1u);
  EXPECT_EQ(required.label_selector->match_expressions[0].key, "spark-app");
  EXPECT_EQ(required.label_selector->match_expressions[0].op, LabelSelectorOperator::kIn);
  const PodAffinityTerm& preferred =
      pod.spec.affinity->pod_anti_affinity->preferred.at(0).pod_affinity_term;
  EXPECT_THAT(preferred.mismatch_label_keys, ::testing::ElementsAre("spark-app"));
  ASSERT_EQ(preferred.label_selector->match_expressions.size(), 1u);
  EXPECT_EQ(preferred.label_selector->match_expressions[0].op, LabelSelectorOperator::kNotIn);

  // Topology spread: minDomains, both inclusion policies, matchLabelKeys; 1.34+ merges
  // the keys into the selector (pod-template-hash In [7d9f]), 1.32 does not.
  ASSERT_EQ(pod.spec.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& c = pod.spec.topology_spread_constraints[0];
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.node_affinity_policy, NodeInclusionPolicy::kHonor);
  EXPECT_EQ(c.node_taints_policy, NodeInclusionPolicy::kHonor);
  EXPECT_THAT(c.match_label_keys, ::testing::ElementsAre("pod-template-hash"));
  ASSERT_TRUE(c.label_selector.has_value());
  EXPECT_EQ(c.label_selector->match_expressions.size(), Is137() ? 1u : 0u);

  // Pod-level resources: beta (on) from 1.34, dropped by 1.32. The effective requests
  // follow: pod-level 3 CPU / 6Gi on 1.37; on 1.32 max(init 1 + sidecar 0.2, sidecar 0.2 +
  // containers 2) = 2.2 CPU and 4Gi + 256Mi.
  Resource r = ComputePodRequests(pod, {});
  if (Is137()) {
    ASSERT_TRUE(pod.spec.resources.has_value());
    EXPECT_EQ(r.milli_cpu, 3000);
    EXPECT_EQ(r.memory, int64_t{6} << 30);
  } else {
    EXPECT_FALSE(pod.spec.resources.has_value());
    EXPECT_EQ(r.milli_cpu, 2200);
    EXPECT_EQ(r.memory, (int64_t{4} << 30) + (int64_t{256} << 20));
  }
  const std::string raw = Capture("pod.json");
  EXPECT_EQ(raw.find("\"resourceClaims\"") != std::string::npos, Is137())
      << "DRA is GA (on) from 1.34 and off in 1.32";
  // Decoded, so that the pod is refused rather than bound blind (unsupported_pods.h).
  if (Is137()) {
    ASSERT_EQ(pod.spec.resource_claims.size(), 1u);
    EXPECT_EQ(pod.spec.resource_claims[0],
              (PodResourceClaim{.name = "gpu", .resource_claim_template_name = "one-gpu"}));
  } else {
    EXPECT_TRUE(pod.spec.resource_claims.empty());
  }
}

TEST_P(ApiserverCaptureTest, PodBeingResized) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(Capture("pod_resize.json")));
  EXPECT_EQ(pod.spec.node_name, "node-a");
  EXPECT_EQ(pod.status.phase, PodPhase::kRunning);
  bool in_progress = false;
  for (const PodCondition& c : pod.status.conditions) {
    in_progress |= c.type == "PodResizeInProgress" && c.status == ConditionStatus::kTrue;
  }
  const std::string raw = Capture("pod_resize.json");
  // The kubelet's allocated/actual resources (2 CPU) are kept in the status by both;
  // 1.33+ also keeps the container's resizePolicy and took the new spec (1 CPU) through
  // the resize subresource, while 1.32 (InPlacePodVerticalScaling alpha, off) dropped the
  // policy and has no such subresource.
  EXPECT_NE(raw.find("\"allocatedResources\":{\"cpu\":\"2\""), std::string::npos);
  EXPECT_EQ(raw.find("\"resizePolicy\":[") != std::string::npos, Is137());
  EXPECT_TRUE(in_progress) << "conditions are kept by both";
  // 1.37 counts the max of the new spec (1 CPU) and what the kubelet allocated and runs
  // (2 CPU) while the resize is in progress; on 1.32 the spec is still 2 CPU.
  ASSERT_EQ(pod.status.container_statuses.size(), 1u);
  EXPECT_TRUE(pod.status.container_statuses[0].allocated_resources.has_value());
  Resource r = ComputePodRequests(pod, {});
  EXPECT_EQ(r.milli_cpu, 2000);
}

TEST_P(ApiserverCaptureTest, Node) {
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

TEST_P(ApiserverCaptureTest, ListsAndNotFound) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList pods, DecodePodList(Capture("pod_list.json")));
  EXPECT_EQ(pods.items.size(), 2u);
  EXPECT_FALSE(pods.metadata.resource_version.empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeList nodes, DecodeNodeList(Capture("node_list.json")));
  EXPECT_EQ(nodes.items.size(), 1u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ApiStatus s, DecodeStatus(Capture("status_not_found.json")));
  EXPECT_EQ(s.code, 404);
  EXPECT_EQ(s.reason, "NotFound");
  EXPECT_EQ(s.message, "pods \"nope\" not found");
}

TEST_P(ApiserverCaptureTest, WatchStreamAddUpdateDelete) {
  std::vector<WatchEventType> types;
  for (absl::string_view line :
       absl::StrSplit(Capture("pod_watch.jsonl"), '\n', absl::SkipEmpty())) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Pod> ev,
                                  DecodePodWatchEvent(std::string_view(line.data(), line.size())));
    EXPECT_EQ(ev.object.metadata.name, "watched");
    types.push_back(ev.type);
  }
  ASSERT_GE(types.size(), 3u);
  EXPECT_EQ(types.front(), WatchEventType::kAdded);
  EXPECT_EQ(types.back(), WatchEventType::kDeleted);
}

TEST_P(ApiserverCaptureTest, PodDisruptionBudgetV1) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SelectorObjectList list,
                                DecodeSelectorObjectList(Capture("pdb_list_v1.json"),
                                                         SelectorResource::kPodDisruptionBudgets));
  ASSERT_EQ(list.items.size(), 1u);
  EXPECT_EQ(list.items[0].metadata.name, "web");
  ASSERT_TRUE(list.items[0].selector.has_value());
  EXPECT_EQ(list.items[0].selector->match_labels.at("app"), "web");
  EXPECT_THAT(Capture("pdb_list_v1.json"),
              HasSubstr("\"unhealthyPodEvictionPolicy\":\"AlwaysAllow\""));
}

TEST_P(ApiserverCaptureTest, CsiDriverAndStorageCapacityV1) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      StorageObject driver,
      DecodeStorageObject(Capture("csidriver.json"), StorageResource::kCSIDrivers));
  EXPECT_EQ(std::get<CSIDriver>(driver.object).storage_capacity, true);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObjectList capacities,
                                DecodeStorageObjectList(Capture("csistoragecapacity_list_v1.json"),
                                                        StorageResource::kCSIStorageCapacities));
  ASSERT_EQ(capacities.items.size(), 1u);
  const auto& c = std::get<CSIStorageCapacity>(capacities.items[0].object);
  EXPECT_EQ(c.storage_class_name, "gp3");
  ASSERT_TRUE(c.capacity.has_value());
  EXPECT_EQ(c.capacity->Value(), int64_t{500} << 30);
  ASSERT_TRUE(c.node_topology.has_value());
  EXPECT_EQ(c.node_topology->match_labels.at("topology.ebs.csi.aws.com/zone"), "us-east-1a");
}

TEST_P(ApiserverCaptureTest, EventV1DecodesAndReencodes) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Event ev, DecodeEvent(Capture("event_v1.json")));
  EXPECT_EQ(ev.reason, "Scheduled");
  EXPECT_EQ(ev.action, "Binding");
  EXPECT_EQ(ev.reporting_controller, "trimaran");
  EXPECT_EQ(ev.regarding.name, "spark-exec-1");
  EXPECT_TRUE(ev.event_time.has_value());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Event again, DecodeEvent(EncodeEvent(ev)));
  EXPECT_EQ(again.reason, ev.reason);
  EXPECT_EQ(again.note, ev.note);
  EXPECT_EQ(again.regarding, ev.regarding);
  EXPECT_EQ(again.event_time, ev.event_time);
}

TEST_P(ApiserverCaptureTest, LeaseDecodesAndReencodes) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease lease, DecodeLease(Capture("lease.json")));
  EXPECT_EQ(lease.spec.holder_identity, "trimaran-0_1a2b");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.lease_transitions, 3);
  ASSERT_TRUE(lease.spec.renew_time.has_value());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease again, DecodeLease(EncodeLease(lease)));
  EXPECT_EQ(again.spec, lease.spec);
  EXPECT_EQ(again.metadata.resource_version, lease.metadata.resource_version);
}

TEST_P(ApiserverCaptureTest, WorkloadOnlyWhereServed) {
  std::ifstream in(std::string(TRIMARAN_KUBE_API_TESTDATA_DIR) + "/apiserver-" + minor() +
                   "/workload.json");
  if (!Is137()) {
    EXPECT_FALSE(in.good()) << "1.32 serves no Workload API";
    return;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_THAT(ss.str(), HasSubstr("\"kind\":\"Workload\""));
  EXPECT_THAT(ss.str(), HasSubstr("\"gang\":{\"minCount\":4}"));
}

INSTANTIATE_TEST_SUITE_P(TestedMinors, ApiserverCaptureTest, ::testing::Values("1.37", "1.32"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return "k8s_" + param_info.param.substr(0, 1) + "_" +
                                  param_info.param.substr(2);
                         });

}  // namespace
}  // namespace trimaran::kube
