#include "kube/api/json_codec.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/internal/json_codec_internal.h"
#include "kube/api/pod_resources.h"
#include "kube/testing/wrappers.h"
#include "rapidjson/document.h"

namespace trimaran::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::trimaran::kube::testing::MakeLabelSelector;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::kube::testing::MustParseQuantity;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(TRIMARAN_KUBE_API_TESTDATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing testdata " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Time T(const char* rfc3339) {
  absl::StatusOr<absl::Time> t = ParseRfc3339(rfc3339);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.value_or(absl::InfinitePast());
}

// ---------------------------------------------------------------------------------------
// Testdata as a kube-apiserver serves it.

TEST(JsonCodecTest, DecodesApiserverPod) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(ReadTestdata("pod.json")));

  EXPECT_EQ(pod.metadata.name, "web-7d9f8b6c5-x2kqp");
  EXPECT_EQ(pod.metadata.namespace_name, "default");
  EXPECT_EQ(NamespacedName(pod), "default/web-7d9f8b6c5-x2kqp");
  EXPECT_EQ(pod.metadata.uid, "5f0d2c1e-8b7a-4c3d-9e2f-1a2b3c4d5e6f");
  EXPECT_EQ(pod.metadata.resource_version, "184523");
  EXPECT_EQ(pod.metadata.creation_timestamp, T("2024-01-02T03:04:05Z"));
  EXPECT_FALSE(pod.metadata.deletion_timestamp.has_value());
  EXPECT_THAT(pod.metadata.labels,
              ElementsAre(Pair("app", "web"), Pair("app.kubernetes.io/name", "web"),
                          Pair("pod-template-hash", "7d9f8b6c5")));
  EXPECT_EQ(pod.metadata.annotations.at("kubectl.kubernetes.io/restartedAt"),
            "2024-01-02T03:00:00Z");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  const OwnerReference* owner = ControllerRef(pod.metadata);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->kind, "ReplicaSet");
  EXPECT_EQ(owner->name, "web-7d9f8b6c5");
  EXPECT_EQ(owner->api_version, "apps/v1");
  EXPECT_TRUE(owner->block_owner_deletion);

  const PodSpec& spec = pod.spec;
  ASSERT_EQ(spec.init_containers.size(), 2u);
  EXPECT_EQ(spec.init_containers[0].name, "migrate");
  EXPECT_FALSE(IsRestartableInitContainer(spec.init_containers[0]));
  EXPECT_TRUE(IsRestartableInitContainer(spec.init_containers[1]));
  ASSERT_EQ(spec.containers.size(), 2u);
  const Container& nginx = spec.containers[0];
  EXPECT_EQ(nginx.name, "nginx");
  EXPECT_EQ(nginx.image, "nginx:1.25.3");
  EXPECT_EQ(nginx.resources.requests.at("cpu").MilliValue(), 500);
  EXPECT_EQ(nginx.resources.requests.at("memory").Value(), 256 << 20);
  EXPECT_EQ(nginx.resources.limits.at("memory").Value(), int64_t{1} << 30);
  ASSERT_EQ(nginx.ports.size(), 1u);
  EXPECT_EQ(nginx.ports[0].name, "http");
  EXPECT_EQ(nginx.ports[0].container_port, 80);
  EXPECT_EQ(nginx.ports[0].host_port, 0);
  EXPECT_EQ(nginx.ports[0].protocol, Protocol::kTCP);
  const ContainerPort& metrics_port = spec.containers[1].ports.at(0);
  EXPECT_EQ(metrics_port.host_port, 9113);
  EXPECT_EQ(metrics_port.host_ip, "0.0.0.0");
  EXPECT_EQ(spec.containers[1].resources.requests.at("nvidia.com/gpu").Value(), 1);

  EXPECT_EQ(spec.node_name, "node-a1");
  EXPECT_TRUE(IsAssigned(pod));
  EXPECT_EQ(spec.scheduler_name, "trimaran");
  EXPECT_THAT(spec.node_selector, ElementsAre(Pair("kubernetes.io/os", "linux")));
  EXPECT_EQ(spec.priority, 1000);
  EXPECT_EQ(PodPriority(pod), 1000);
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.preemption_policy, PreemptionPolicy::kPreemptLowerPriority);
  EXPECT_EQ(spec.overhead.at("cpu").MilliValue(), 250);
  EXPECT_FALSE(spec.host_network);
  EXPECT_FALSE(spec.resources.has_value());

  // Affinity.
  ASSERT_TRUE(spec.affinity.has_value());
  ASSERT_TRUE(spec.affinity->node_affinity.has_value());
  const NodeAffinity& na = *spec.affinity->node_affinity;
  ASSERT_TRUE(na.required.has_value());
  ASSERT_EQ(na.required->node_selector_terms.size(), 1u);
  const NodeSelectorTerm& term = na.required->node_selector_terms[0];
  ASSERT_EQ(term.match_expressions.size(), 2u);
  EXPECT_EQ(term.match_expressions[0].key, "topology.kubernetes.io/zone");
  EXPECT_EQ(term.match_expressions[0].op, NodeSelectorOperator::kIn);
  EXPECT_THAT(term.match_expressions[0].values, ElementsAre("us-east-1a", "us-east-1b"));
  EXPECT_EQ(term.match_expressions[1].op, NodeSelectorOperator::kGt);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].op, NodeSelectorOperator::kNotIn);
  ASSERT_EQ(na.preferred.size(), 1u);
  EXPECT_EQ(na.preferred[0].weight, 20);
  EXPECT_EQ(na.preferred[0].preference.match_expressions.at(0).op, NodeSelectorOperator::kExists);
  ASSERT_TRUE(spec.affinity->pod_anti_affinity.has_value());
  const WeightedPodAffinityTerm& anti = spec.affinity->pod_anti_affinity->preferred.at(0);
  EXPECT_EQ(anti.weight, 100);
  EXPECT_EQ(anti.pod_affinity_term.topology_key, "kubernetes.io/hostname");
  EXPECT_THAT(anti.pod_affinity_term.label_selector->match_labels, ElementsAre(Pair("app", "web")));
  EXPECT_FALSE(anti.pod_affinity_term.namespace_selector.has_value());
  ASSERT_TRUE(spec.affinity->pod_affinity.has_value());
  const PodAffinityTerm& aff = spec.affinity->pod_affinity->required.at(0);
  EXPECT_THAT(aff.namespaces, ElementsAre("default", "cache"));
  ASSERT_TRUE(aff.namespace_selector.has_value());  // {} = all namespaces
  EXPECT_EQ(*aff.namespace_selector, LabelSelector{});
  EXPECT_EQ(aff.label_selector->match_expressions.at(0).op, LabelSelectorOperator::kIn);

  // Tolerations.
  ASSERT_EQ(spec.tolerations.size(), 3u);
  EXPECT_EQ(spec.tolerations[0].op, TolerationOperator::kExists);
  EXPECT_EQ(spec.tolerations[0].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(spec.tolerations[0].toleration_seconds, 300);
  EXPECT_EQ(spec.tolerations[2].op, TolerationOperator::kEqual);  // defaulted
  EXPECT_EQ(spec.tolerations[2].value, "web");
  EXPECT_EQ(spec.tolerations[2].effect, TaintEffect::kNoSchedule);
  EXPECT_FALSE(spec.tolerations[2].toleration_seconds.has_value());

  // Topology spread.
  ASSERT_EQ(spec.topology_spread_constraints.size(), 1u);
  const TopologySpreadConstraint& tsc = spec.topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 1);
  EXPECT_EQ(tsc.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(tsc.when_unsatisfiable, UnsatisfiableConstraintAction::kDoNotSchedule);
  EXPECT_EQ(tsc.min_domains, 2);
  EXPECT_EQ(tsc.node_affinity_policy, NodeInclusionPolicy::kHonor);
  EXPECT_EQ(tsc.node_taints_policy, NodeInclusionPolicy::kIgnore);
  EXPECT_THAT(tsc.match_label_keys, ElementsAre("pod-template-hash"));

  // Status.
  EXPECT_EQ(pod.status.phase, PodPhase::kRunning);
  EXPECT_FALSE(IsTerminal(pod));
  ASSERT_EQ(pod.status.conditions.size(), 4u);
  const PodCondition* scheduled = FindCondition(pod.status, kPodScheduled);
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, ConditionStatus::kTrue);
  EXPECT_FALSE(scheduled->last_probe_time.has_value());  // null
  EXPECT_EQ(scheduled->last_transition_time, T("2024-01-02T03:04:05Z"));
  EXPECT_EQ(pod.status.start_time, T("2024-01-02T03:04:05Z"));

  // The requests of this pod, spelled out:
  //   containers: nginx 500m/256Mi + metrics 50m/32Mi/gpu 1, sidecar log-shipper 100m/64Mi
  //     -> 650m / 352Mi / gpu 1
  //   init usage: migrate 1000m/512Mi (no sidecar before it); log-shipper 100m/64Mi
  //     -> max 1000m / 512Mi
  //   max -> 1000m / 512Mi / gpu 1, + overhead 250m/120Mi -> 1250m / 632Mi / gpu 1
  const Resource r = ComputePodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 1250);
  EXPECT_EQ(r.memory, int64_t{632} << 20);
  EXPECT_EQ(r.Get("nvidia.com/gpu"), 1);
}

TEST(JsonCodecTest, DecodesApiserverNode) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node, DecodeNode(ReadTestdata("node.json")));
  EXPECT_EQ(node.metadata.name, "node-a1");
  EXPECT_EQ(NamespacedName(node.metadata), "node-a1");
  EXPECT_EQ(node.metadata.labels.at(std::string(kLabelTopologyZone)), "us-east-1a");
  EXPECT_EQ(node.metadata.labels.size(), 8u);
  EXPECT_EQ(node.spec.pod_cidr, "10.244.3.0/24");
  EXPECT_THAT(node.spec.pod_cidrs, ElementsAre("10.244.3.0/24"));
  EXPECT_EQ(node.spec.provider_id, "aws:///us-east-1a/i-0123456789abcdef0");
  EXPECT_FALSE(node.spec.unschedulable);
  ASSERT_EQ(node.spec.taints.size(), 3u);
  EXPECT_EQ(node.spec.taints[0].key, "dedicated");
  EXPECT_EQ(node.spec.taints[0].value, "web");
  EXPECT_EQ(node.spec.taints[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(node.spec.taints[1].effect, TaintEffect::kPreferNoSchedule);
  EXPECT_EQ(node.spec.taints[2].effect, TaintEffect::kNoExecute);
  EXPECT_EQ(node.spec.taints[2].time_added, T("2024-01-02T02:59:00Z"));

  EXPECT_EQ(node.status.capacity.at("cpu").MilliValue(), 4000);
  EXPECT_EQ(node.status.allocatable.at("cpu").MilliValue(), 3920);
  EXPECT_EQ(node.status.allocatable.at("memory").Value(), int64_t{15304808} * 1024);
  EXPECT_EQ(node.status.allocatable.at("ephemeral-storage").Value(), 74747546427);
  EXPECT_EQ(node.status.allocatable.at("pods").Value(), 110);
  const Resource alloc = Resource::FromResourceList(node.status.allocatable);
  EXPECT_EQ(alloc.milli_cpu, 3920);
  EXPECT_EQ(alloc.allowed_pod_number, 110);
  EXPECT_EQ(alloc.Get("nvidia.com/gpu"), 2);
  EXPECT_EQ(alloc.Get("hugepages-2Mi"), 0);

  ASSERT_EQ(node.status.conditions.size(), 4u);
  const NodeCondition* ready = FindCondition(node.status, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, ConditionStatus::kTrue);
  EXPECT_EQ(ready->reason, "KubeletReady");
  EXPECT_EQ(ready->last_heartbeat_time, T("2024-01-02T03:00:00Z"));
  ASSERT_EQ(node.status.addresses.size(), 3u);
  EXPECT_EQ(node.status.addresses[0], (NodeAddress{"InternalIP", "10.0.1.17"}));
  ASSERT_EQ(node.status.images.size(), 2u);
  EXPECT_EQ(node.status.images[0].size_bytes, 70541745);
  EXPECT_EQ(node.status.images[0].names.size(), 2u);
}

TEST(JsonCodecTest, DecodesApiserverPodList) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList list, DecodePodList(ReadTestdata("pod_list.json")));
  EXPECT_EQ(list.metadata.resource_version, "184600");
  EXPECT_THAT(list.metadata.continue_token, HasSubstr("eyJ2Ijoi"));
  EXPECT_EQ(list.metadata.remaining_item_count, 7);
  ASSERT_EQ(list.items.size(), 3u);
  EXPECT_EQ(list.items[0].metadata.name, "web-7d9f8b6c5-x2kqp");

  const Pod& pending = list.items[1];
  EXPECT_EQ(NamespacedName(pending), "jobs/batch-0");
  EXPECT_FALSE(IsAssigned(pending));
  EXPECT_EQ(pending.spec.preemption_policy, PreemptionPolicy::kNever);
  ASSERT_EQ(pending.spec.scheduling_gates.size(), 1u);
  EXPECT_EQ(pending.spec.scheduling_gates[0].name, "example.com/quota");
  ASSERT_TRUE(pending.spec.resources.has_value());
  EXPECT_EQ(pending.spec.resources->requests.at("cpu").MilliValue(), 3000);
  EXPECT_EQ(pending.status.nominated_node_name, "node-b2");
  const PodCondition* cond = FindCondition(pending.status, kPodScheduled);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->status, ConditionStatus::kFalse);
  EXPECT_EQ(cond->reason, kPodReasonUnschedulable);
  EXPECT_THAT(cond->message, HasSubstr("3 Insufficient cpu"));
  // Pod-level 3 cpu / 5Gi replace the container's 2 / 4Gi; hugepages and
  // ephemeral-storage come from the container.
  const Resource r = ComputePodRequests(pending);
  EXPECT_EQ(r.milli_cpu, 3000);
  EXPECT_EQ(r.memory, int64_t{5} << 30);
  EXPECT_EQ(r.ephemeral_storage, int64_t{1} << 30);
  EXPECT_EQ(r.Get("hugepages-2Mi"), int64_t{256} << 20);

  const Pod& done = list.items[2];
  EXPECT_TRUE(IsTerminal(done));
  EXPECT_TRUE(IsTerminating(done));
  EXPECT_EQ(done.metadata.generation, 2);
  EXPECT_TRUE(done.spec.host_network);
  EXPECT_EQ(done.spec.scheduler_name, kDefaultSchedulerName);
  EXPECT_EQ(PodPriority(done), 2000001000);
  ASSERT_EQ(done.spec.tolerations.size(), 1u);
  EXPECT_EQ(done.spec.tolerations[0].op, TolerationOperator::kExists);
  EXPECT_EQ(done.spec.tolerations[0].key, "");
  EXPECT_EQ(done.spec.tolerations[0].effect, TaintEffect::kAll);
}

TEST(JsonCodecTest, DecodesApiserverNodeList) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeList list, DecodeNodeList(ReadTestdata("node_list.json")));
  EXPECT_EQ(list.metadata.resource_version, "184601");
  EXPECT_EQ(list.metadata.continue_token, "");
  EXPECT_FALSE(list.metadata.remaining_item_count.has_value());
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0].metadata.name, "node-a1");
  const Node& cp = list.items[1];
  EXPECT_TRUE(cp.spec.unschedulable);
  EXPECT_EQ(cp.metadata.labels.at("node-role.kubernetes.io/control-plane"), "");
  ASSERT_EQ(cp.spec.taints.size(), 2u);
  EXPECT_EQ(cp.spec.taints[1].key, kTaintNodeUnschedulable);
  EXPECT_EQ(FindCondition(cp.status, "Ready")->status, ConditionStatus::kUnknown);
}

TEST(JsonCodecTest, DecodesWatchStream) {
  std::istringstream lines(ReadTestdata("watch_events.jsonl"));
  std::vector<WatchEvent<Pod>> events;
  std::string line;
  while (std::getline(lines, line)) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Pod> e, DecodePodWatchEvent(line));
    events.push_back(std::move(e));
  }
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].type, WatchEventType::kAdded);
  EXPECT_EQ(events[0].object.metadata.resource_version, "200");
  EXPECT_FALSE(IsAssigned(events[0].object));
  EXPECT_EQ(events[1].type, WatchEventType::kModified);
  EXPECT_EQ(events[1].object.spec.node_name, "n1");
  EXPECT_EQ(events[2].type, WatchEventType::kBookmark);
  EXPECT_EQ(events[2].object.metadata.resource_version, "250");
  EXPECT_EQ(events[2].object.metadata.annotations.at("k8s.io/initial-events-end"), "true");
  EXPECT_EQ(events[3].type, WatchEventType::kDeleted);
  EXPECT_TRUE(IsTerminal(events[3].object));
  EXPECT_EQ(events[4].type, WatchEventType::kError);
  ASSERT_TRUE(events[4].error.has_value());
  EXPECT_EQ(events[4].error->code, 410);
  EXPECT_EQ(events[4].error->reason, "Expired");
  EXPECT_FALSE(events[0].error.has_value());
}

// The shapes kube-apiserver returns for the five SelectorObject resources (list items
// carry no kind; watch events do).
TEST(JsonCodecTest, DecodesSelectorObjects) {
  const std::string services = R"({"kind":"ServiceList","apiVersion":"v1",
    "metadata":{"resourceVersion":"42"},
    "items":[
      {"metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
       "spec":{"selector":{"app":"web","tier":"front"},"ports":[{"port":80}],
               "type":"ClusterIP"}},
      {"metadata":{"name":"kubernetes","namespace":"default"},
       "spec":{"ports":[{"port":443}]}}]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SelectorObjectList svc,
                                DecodeSelectorObjectList(services, SelectorResource::kServices));
  EXPECT_EQ(svc.metadata.resource_version, "42");
  ASSERT_EQ(svc.items.size(), 2u);
  EXPECT_EQ(svc.items[0].metadata.name, "web");
  ASSERT_TRUE(svc.items[0].selector.has_value());
  EXPECT_EQ(svc.items[0].selector->match_labels, (Labels{{"app", "web"}, {"tier", "front"}}));
  EXPECT_TRUE(svc.items[0].selector->match_expressions.empty());
  EXPECT_FALSE(svc.items[1].selector.has_value()) << "a Service without a selector";

  const std::string replicasets = R"({"kind":"ReplicaSetList","apiVersion":"apps/v1",
    "metadata":{"resourceVersion":"7"},
    "items":[{"metadata":{"name":"web-abc","namespace":"default"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},
        "matchExpressions":[{"key":"track","operator":"In","values":["stable"]}]},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[]}}}}]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SelectorObjectList rs, DecodeSelectorObjectList(replicasets, SelectorResource::kReplicaSets));
  ASSERT_EQ(rs.items.size(), 1u);
  ASSERT_TRUE(rs.items[0].selector.has_value());
  EXPECT_EQ(rs.items[0].selector->match_labels, (Labels{{"app", "web"}}));
  ASSERT_EQ(rs.items[0].selector->match_expressions.size(), 1u);
  EXPECT_EQ(rs.items[0].selector->match_expressions[0].key, "track");

  // policy/v1beta1 (the 1.20 test apiserver) and policy/v1 lists read alike.
  const std::string pdbs = R"({"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1beta1",
    "metadata":{"resourceVersion":"11"},
    "items":[{"metadata":{"name":"web-pdb","namespace":"default"},
      "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"web"}}},
      "status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":3,
        "desiredHealthy":2,"expectedPods":3,
        "disruptedPods":{"web-1":"2024-01-01T00:00:00Z","web-2":"2024-01-01T00:00:01Z"}}},
     {"metadata":{"name":"fresh","namespace":"default"},"spec":{"maxUnavailable":1},
      "status":{"disruptionsAllowed":0}}]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SelectorObjectList pdb,
      DecodeSelectorObjectList(pdbs, SelectorResource::kPodDisruptionBudgetsV1beta1));
  ASSERT_EQ(pdb.items.size(), 2u);
  EXPECT_EQ(pdb.items[0].disruptions_allowed, 1);
  EXPECT_THAT(pdb.items[0].disrupted_pods, ::testing::UnorderedElementsAre("web-1", "web-2"));
  ASSERT_TRUE(pdb.items[0].selector.has_value());
  EXPECT_EQ(pdb.items[0].selector->match_labels, (Labels{{"app", "web"}}));
  EXPECT_FALSE(pdb.items[1].selector.has_value());
  EXPECT_EQ(pdb.items[1].disruptions_allowed, 0);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SelectorObjectList bad_pdb,
      DecodeSelectorObjectList(
          R"({"kind":"PodDisruptionBudgetList","items":[{"status":{"disruptionsAllowed":"x"}}]})",
          SelectorResource::kPodDisruptionBudgets));
  EXPECT_TRUE(bad_pdb.items.empty());
  EXPECT_EQ(bad_pdb.skipped.size(), 1u);

  const std::string namespaces = R"({"kind":"NamespaceList","apiVersion":"v1",
    "metadata":{"resourceVersion":"9"},
    "items":[{"metadata":{"name":"team-a","labels":{"team":"a"}},
      "spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SelectorObjectList ns, DecodeSelectorObjectList(namespaces, SelectorResource::kNamespaces));
  ASSERT_EQ(ns.items.size(), 1u);
  EXPECT_EQ(ns.items[0].metadata.labels, (Labels{{"team", "a"}}));
  EXPECT_FALSE(ns.items[0].selector.has_value());

  // The list kind is checked against the resource asked for.
  EXPECT_THAT(DecodeSelectorObjectList(services, SelectorResource::kReplicaSets).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ReplicaSetList")));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatchEvent<SelectorObject> ev,
      DecodeSelectorObjectWatchEvent(
          R"({"type":"MODIFIED","object":{"kind":"StatefulSet","apiVersion":"apps/v1",)"
          R"("metadata":{"name":"db","namespace":"default","resourceVersion":"11"},)"
          R"("spec":{"selector":{"matchLabels":{"app":"db"}}}}})"));
  EXPECT_EQ(ev.type, WatchEventType::kModified);
  EXPECT_EQ(ev.object.metadata.resource_version, "11");
  EXPECT_EQ(ev.object.selector->match_labels, (Labels{{"app", "db"}}));
  // A kind that is none of the five: undecodable, not a crash or a silent success.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatchEvent<SelectorObject> pod_event,
      DecodeSelectorObjectWatchEvent(
          R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p"}}})"));
  ASSERT_TRUE(pod_event.undecodable.has_value());
  EXPECT_EQ(pod_event.object.metadata.name, "p");
  // A selector of the wrong type is an error naming its path.
  const std::string bad = R"({"kind":"ServiceList","items":[
      {"metadata":{"name":"x","namespace":"default"},"spec":{"selector":"app=web"}}]})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SelectorObjectList skipped,
                                DecodeSelectorObjectList(bad, SelectorResource::kServices));
  EXPECT_TRUE(skipped.items.empty());
  ASSERT_EQ(skipped.skipped.size(), 1u);
  EXPECT_THAT(skipped.skipped[0].status.message(), HasSubstr("items[0].spec.selector"));
}

TEST(JsonCodecTest, DecodesLeaseAndStatus) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease lease, DecodeLease(ReadTestdata("lease.json")));
  EXPECT_EQ(lease.metadata.name, "trimaran-scheduler");
  EXPECT_EQ(lease.metadata.namespace_name, "kube-system");
  EXPECT_EQ(lease.spec.holder_identity, "sched-0_6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.acquire_time, T("2024-01-02T03:00:00Z"));
  EXPECT_EQ(lease.spec.renew_time, T("2024-01-02T03:05:02Z") + absl::Microseconds(123456));
  EXPECT_EQ(lease.spec.lease_transitions, 3);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(ApiStatus status,
                                DecodeStatus(ReadTestdata("status_expired.json")));
  EXPECT_EQ(status.status, "Failure");
  EXPECT_EQ(status.code, 410);
  EXPECT_EQ(status.reason, "Expired");
  EXPECT_THAT(status.message, HasSubstr("too old resource version"));
}

// The parser leaves bulky, unread members (managedFields, containerStatuses, env, ...)
// out of the DOM. That must never change a decoded object.
template <typename T>
absl::StatusOr<T> DecodeUnfiltered(const std::string& json) {
  json_internal::ValueParser parser(json, /*filter_ignored_members=*/false);
  TRIMARAN_RETURN_IF_ERROR(parser.ParseDocument());
  T out;
  TRIMARAN_RETURN_IF_ERROR(json_internal::Read(parser.root(), json_internal::Path(""), out));
  return out;
}

TEST(JsonCodecTest, FilteringChangesNothing) {
  {
    const std::string json = ReadTestdata("pod.json");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod filtered, DecodePod(json));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod unfiltered, DecodeUnfiltered<Pod>(json));
    EXPECT_EQ(filtered, unfiltered);
  }
  {
    const std::string json = ReadTestdata("node.json");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Node filtered, DecodeNode(json));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Node unfiltered, DecodeUnfiltered<Node>(json));
    EXPECT_EQ(filtered, unfiltered);
  }
  {
    const std::string json = ReadTestdata("pod_list.json");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList filtered, DecodePodList(json));
    json_internal::ValueParser parser(json, false);
    TRIMARAN_ASSERT_OK(parser.ParseDocument());
    PodList unfiltered;
    TRIMARAN_ASSERT_OK(
        json_internal::ReadList(parser.root(), json_internal::Path(""), "PodList", unfiltered));
    EXPECT_EQ(filtered, unfiltered);
  }
  {
    const std::string json = ReadTestdata("lease.json");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease filtered, DecodeLease(json));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease unfiltered, DecodeUnfiltered<Lease>(json));
    EXPECT_EQ(filtered, unfiltered);
  }
}

TEST(JsonCodecTest, FilteringIsScopedToSchemaFields) {
  // Names that are dropped from containers/metadata/spec/status survive as map keys,
  // and in objects where they are not the ignored schema field.
  const std::string json = R"({
    "metadata": {"name": "p", "managedFields": [{"manager": "x"}],
                 "labels": {"env": "prod", "managedFields": "1", "command": "c"},
                 "annotations": {"volumes": "v", "containerStatuses": "s"}},
    "spec": {
      "volumes": [{"name": "v"}],
      "nodeSelector": {"env": "prod", "args": "a"},
      "containers": [{"name": "c0", "env": [{"name": "E", "value": "v"}], "command": ["sh"],
                      "resources": {"requests": {"cpu": "1"}}, "livenessProbe": null,
                      "securityContext": {"runAsUser": 0}, "image": "i"}],
      "initContainers": [{"args": ["x"], "name": "i0", "restartPolicy": "Always"}],
      "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"env": "prod"}}, "topologyKey": "zone"}]}}
    },
    "status": {"containerStatuses": [{"name": "c0"}], "phase": "Running",
               "conditions": [{"type": "Ready", "status": "True"}]}
  })";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(json));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod unfiltered, DecodeUnfiltered<Pod>(json));
  EXPECT_EQ(pod, unfiltered);
  EXPECT_THAT(pod.metadata.labels,
              ElementsAre(Pair("command", "c"), Pair("env", "prod"), Pair("managedFields", "1")));
  EXPECT_EQ(pod.metadata.annotations.size(), 2u);
  EXPECT_THAT(pod.spec.node_selector, ElementsAre(Pair("args", "a"), Pair("env", "prod")));
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  EXPECT_EQ(pod.spec.containers[0].name, "c0");
  EXPECT_EQ(pod.spec.containers[0].image, "i");
  EXPECT_EQ(pod.spec.containers[0].resources.requests.at("cpu").MilliValue(), 1000);
  EXPECT_EQ(pod.spec.init_containers.at(0).name, "i0");
  EXPECT_TRUE(IsRestartableInitContainer(pod.spec.init_containers.at(0)));
  EXPECT_THAT(pod.spec.affinity->pod_affinity->required.at(0).label_selector->match_labels,
              ElementsAre(Pair("env", "prod")));
  EXPECT_EQ(pod.status.phase, PodPhase::kRunning);
  EXPECT_EQ(pod.status.conditions.size(), 1u);
}

// ---------------------------------------------------------------------------------------
// Defaults and leniency.

// What in-place resize needs of a container status is decoded; the rest of it (state,
// image, restarts) is filtered out and never changes the result.
TEST(JsonCodecTest, DecodesResizeStatus) {
  const std::string json = R"({
    "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "1"}}}],
             "initContainers": [{"name": "proxy", "restartPolicy": "Always"}]},
    "status": {
      "phase": "Running",
      "conditions": [{"type": "PodResizeInProgress", "status": "True"}],
      "allocatedResources": {"cpu": "3"},
      "resources": {"requests": {"cpu": "3"}, "limits": {"cpu": "4"}},
      "containerStatuses": [{
        "name": "app", "state": {"running": {"startedAt": "2026-01-02T03:04:05Z"}},
        "lastState": {}, "ready": true, "restartCount": 2, "image": "nginx",
        "imageID": "sha256:1", "containerID": "containerd://1", "started": true,
        "allocatedResources": {"cpu": "3"},
        "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "4"}},
        "allocatedResourcesStatus": [{"name": "cpu", "resources": []}],
        "user": {"linux": {"uid": 0, "gid": 0}}}],
      "initContainerStatuses": [{"name": "proxy", "state": {}, "allocatedResources": null}]
    }
  })";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(json));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod unfiltered, DecodeUnfiltered<Pod>(json));
  EXPECT_EQ(pod, unfiltered);
  ASSERT_EQ(pod.status.container_statuses.size(), 1u);
  const ContainerStatus& app = pod.status.container_statuses[0];
  EXPECT_EQ(app.name, "app");
  ASSERT_TRUE(app.allocated_resources.has_value());
  EXPECT_EQ(app.allocated_resources->at("cpu").MilliValue(), 3000);
  ASSERT_TRUE(app.resources.has_value());
  EXPECT_EQ(app.resources->requests.at("cpu").MilliValue(), 2000);
  ASSERT_EQ(pod.status.init_container_statuses.size(), 1u);
  EXPECT_EQ(pod.status.init_container_statuses[0].name, "proxy");
  EXPECT_FALSE(pod.status.init_container_statuses[0].allocated_resources.has_value());
  ASSERT_TRUE(pod.status.allocated_resources.has_value());
  ASSERT_TRUE(pod.status.resources.has_value());
  EXPECT_EQ(pod.status.resources->requests.at("cpu").MilliValue(), 3000);
  // Spec 1, allocated 3, running 2 (pod-level 3): the pod holds 3 cpu.
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 3000);
}

TEST(JsonCodecTest, AppliesApiserverDefaults) {
  struct TestCase {
    std::string name;
    std::string json;
    std::string scheduler_name;
    PodPhase phase;
  };
  const std::vector<TestCase> cases = {
      {"empty object", "{}", "default-scheduler", PodPhase::kPending},
      {"empty schedulerName", R"({"spec":{"schedulerName":""}})", "default-scheduler",
       PodPhase::kPending},
      {"null everywhere",
       R"({"kind":null,"metadata":null,"spec":{"schedulerName":null,"containers":null},"status":null})",
       "default-scheduler", PodPhase::kPending},
      {"empty phase", R"({"status":{"phase":""}})", "default-scheduler", PodPhase::kPending},
      {"explicit", R"({"spec":{"schedulerName":"trimaran"},"status":{"phase":"Failed"}})",
       "trimaran", PodPhase::kFailed},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(tc.json));
    EXPECT_EQ(pod.spec.scheduler_name, tc.scheduler_name);
    EXPECT_EQ(pod.status.phase, tc.phase);
  }
}

TEST(JsonCodecTest, DefaultsNestedFields) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(R"({
    "metadata": {"name": "p", "labels": {"a": "1", "b": null}, "creationTimestamp": null},
    "spec": {
      "containers": [{"name": "c", "ports": [{"containerPort": 80}], "unknownField": [1, 2]}],
      "tolerations": [{"key": "k", "value": "v"}],
      "topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "zone",
                                     "whenUnsatisfiable": "ScheduleAnyway"}],
      "affinity": {"nodeAffinity": {}}
    },
    "someFutureField": {"deeply": {"nested": [true, false, null]}}
  })"));
  EXPECT_THAT(pod.metadata.labels, ElementsAre(Pair("a", "1")));  // null value skipped
  EXPECT_FALSE(pod.metadata.creation_timestamp.has_value());
  EXPECT_EQ(pod.spec.containers.at(0).ports.at(0).protocol, Protocol::kTCP);
  EXPECT_EQ(pod.spec.containers.at(0).restart_policy, ContainerRestartPolicy::kUnset);
  EXPECT_EQ(pod.spec.tolerations.at(0).op, TolerationOperator::kEqual);
  EXPECT_EQ(pod.spec.tolerations.at(0).effect, TaintEffect::kAll);
  const TopologySpreadConstraint& tsc = pod.spec.topology_spread_constraints.at(0);
  EXPECT_EQ(tsc.when_unsatisfiable, UnsatisfiableConstraintAction::kScheduleAnyway);
  EXPECT_FALSE(tsc.label_selector.has_value());
  EXPECT_FALSE(tsc.min_domains.has_value());
  EXPECT_FALSE(tsc.node_affinity_policy.has_value());
  ASSERT_TRUE(pod.spec.affinity.has_value());
  ASSERT_TRUE(pod.spec.affinity->node_affinity.has_value());
  EXPECT_FALSE(pod.spec.affinity->node_affinity->required.has_value());
  EXPECT_FALSE(pod.spec.affinity->pod_affinity.has_value());
  EXPECT_FALSE(pod.spec.priority.has_value());
  EXPECT_EQ(PodPriority(pod), 0);
}

TEST(JsonCodecTest, QuantityMayBeAJsonNumber) {
  // Go's Quantity.UnmarshalJSON accepts a bare number, as `kubectl` users sometimes write.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      Pod pod, DecodePod(R"({"spec":{"containers":[{"name":"c","resources":{"requests":)"
                         R"({"cpu":2,"memory":1048576,"example.com/foo":0.5}}}]}})"));
  const ResourceList& req = pod.spec.containers.at(0).resources.requests;
  EXPECT_EQ(req.at("cpu").MilliValue(), 2000);
  EXPECT_EQ(req.at("memory").Value(), 1048576);
  EXPECT_EQ(req.at("example.com/foo").MilliValue(), 500);
}

// ---------------------------------------------------------------------------------------
// Errors name the field.

TEST(JsonCodecTest, RejectsBadValuesWithFieldPath) {
  struct TestCase {
    std::string name;
    std::string json;
    std::string message;  // exact
  };
  const std::vector<TestCase> cases = {
      {"bad quantity in second container",
       R"({"spec":{"containers":[{"name":"a"},{"name":"b","resources":{"requests":{"cpu":"1.5.3"}}}]}})",
       R"(spec.containers[1].resources.requests.cpu: invalid quantity "1.5.3")"},
      {"quantity of the wrong type", R"({"spec":{"overhead":{"memory":true}}})",
       "spec.overhead.memory: expected quantity string, got boolean"},
      {"labels not an object", R"({"metadata":{"labels":["a"]}})",
       "metadata.labels: expected object, got array"},
      {"label value not a string", R"({"metadata":{"labels":{"app":7}}})",
       "metadata.labels.app: expected string, got number"},
      {"name not a string", R"({"metadata":{"name":{}}})",
       "metadata.name: expected string, got object"},
      {"bad timestamp", R"({"metadata":{"creationTimestamp":"yesterday"}})",
       R"(metadata.creationTimestamp: invalid RFC 3339 time "yesterday")"},
      {"bad condition time",
       R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"X","status":"True","lastTransitionTime":"2024-13-01T00:00:00Z"}]}})",
       R"(status.conditions[1].lastTransitionTime: invalid RFC 3339 time "2024-13-01T00:00:00Z")"},
      {"operator not a string", R"({"spec":{"tolerations":[{"key":"k","operator":1}]}})",
       "spec.tolerations[0].operator: expected string, got number"},
      {"priority not an integer", R"({"spec":{"priority":1.5}})",
       "spec.priority: expected a 32-bit integer"},
      {"priority too large", R"({"spec":{"priority":4294967296}})",
       "spec.priority: expected a 32-bit integer"},
      {"priority a string", R"({"spec":{"priority":"10"}})",
       "spec.priority: expected integer, got string"},
      {"containers not an array", R"({"spec":{"containers":{"name":"c"}}})",
       "spec.containers: expected array, got object"},
      {"container not an object", R"({"spec":{"containers":["c"]}})",
       "spec.containers[0]: expected object, got string"},
      {"hostNetwork not a bool", R"({"spec":{"hostNetwork":"true"}})",
       "spec.hostNetwork: expected boolean, got string"},
      {"phase not a string", R"({"status":{"phase":["Pending"]}})",
       "status.phase: expected string, got array"},
      {"wrong kind", R"({"kind":"Node","metadata":{"name":"n"}})",
       R"(kind: expected "Pod", got "Node")"},
      {"root not an object", "[1,2]", "expected object, got array"},
      {"root a string", R"("pod")", "expected object, got string"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::StatusOr<Pod> pod = DecodePod(tc.json);
    ASSERT_FALSE(pod.ok());
    EXPECT_EQ(pod.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(pod.status().message(), tc.message);
  }
}

// The apiserver admits any string for these enums; one unknown value must not make the
// object undecodable. Each decodes to kUnrecognized and is written back as the marker,
// which decodes to kUnrecognized again.
TEST(JsonCodecTest, UnknownEnumValuesDecodeAsUnrecognized) {
  const std::string pod_json = R"({"metadata":{"name":"p"},"spec":{
      "tolerations":[{"key":"k","operator":"Maybe","effect":"NoWay"}],
      "containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"QUIC"}]}],
      "initContainers":[{"name":"i","restartPolicy":"Sometimes"}],
      "preemptionPolicy":"Politely",
      "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z","whenUnsatisfiable":"Shrug",
                                    "nodeAffinityPolicy":"Maybe","nodeTaintsPolicy":"Perhaps",
                                    "labelSelector":{"matchExpressions":[{"key":"a","operator":"Near"}]}}],
      "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
        "nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Like"}]}]}}}},
    "status":{"phase":"Sleeping","conditions":[{"type":"Ready","status":"Perhaps"}]}})";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(pod_json));
  EXPECT_EQ(pod.spec.tolerations[0].op, TolerationOperator::kUnrecognized);
  EXPECT_EQ(pod.spec.tolerations[0].effect, TaintEffect::kUnrecognized);
  EXPECT_EQ(pod.spec.containers[0].ports[0].protocol, Protocol::kUnrecognized);
  EXPECT_EQ(pod.spec.init_containers[0].restart_policy, ContainerRestartPolicy::kUnrecognized);
  EXPECT_FALSE(IsRestartableInitContainer(pod.spec.init_containers[0]));
  EXPECT_EQ(pod.spec.preemption_policy, PreemptionPolicy::kUnrecognized);
  const TopologySpreadConstraint& tsc = pod.spec.topology_spread_constraints[0];
  EXPECT_EQ(tsc.when_unsatisfiable, UnsatisfiableConstraintAction::kUnrecognized);
  EXPECT_EQ(tsc.node_affinity_policy, NodeInclusionPolicy::kUnrecognized);
  EXPECT_EQ(tsc.node_taints_policy, NodeInclusionPolicy::kUnrecognized);
  EXPECT_EQ(tsc.label_selector->match_expressions[0].op, LabelSelectorOperator::kUnrecognized);
  EXPECT_EQ(
      pod.spec.affinity->node_affinity->required->node_selector_terms[0].match_expressions[0].op,
      NodeSelectorOperator::kUnrecognized);
  EXPECT_EQ(pod.status.phase, PodPhase::kUnrecognized);
  EXPECT_FALSE(IsTerminal(pod)) << "an unknown phase is not terminal";
  EXPECT_EQ(pod.status.conditions[0].status, ConditionStatus::kUnrecognized);

  const std::string encoded = EncodePod(pod);
  EXPECT_THAT(encoded, HasSubstr(R"("effect":"<unrecognized>")"));
  EXPECT_THAT(encoded, Not(HasSubstr("NoWay")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod again, DecodePod(encoded));
  EXPECT_EQ(again, pod);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node, DecodeNode(R"({"metadata":{"name":"n"},"spec":{"taints":[
          {"key":"a","effect":"NoSchedule"},{"key":"b","effect":"EvictLater"}]},
          "status":{"conditions":[{"type":"Ready","status":"Dunno"}]}})"));
  EXPECT_EQ(node.spec.taints[0].effect, TaintEffect::kNoSchedule);
  EXPECT_EQ(node.spec.taints[1].effect, TaintEffect::kUnrecognized);
  EXPECT_EQ(node.status.conditions[0].status, ConditionStatus::kUnrecognized);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node_again, DecodeNode(EncodeNode(node)));
  EXPECT_EQ(node_again, node);
}

// The apiserver admits quantities beyond 2^63-1 base units; they saturate.
TEST(JsonCodecTest, HugeQuantitiesSaturate) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod,
                                DecodePod(R"({"spec":{"containers":[{"name":"c","resources":{
          "requests":{"memory":"10E","cpu":"1e30"},"limits":{"memory":1e300,"x/y":"16Ei"}}}]}})"));
  const ResourceList& requests = pod.spec.containers[0].resources.requests;
  const ResourceList& limits = pod.spec.containers[0].resources.limits;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(requests.at("memory").Value(), kMax);
  EXPECT_EQ(requests.at("cpu").MilliValue(), kMax);
  EXPECT_EQ(limits.at("memory").Value(), kMax);
  EXPECT_EQ(limits.at("x/y").Value(), kMax);
  // Syntax errors are still errors.
  EXPECT_THAT(DecodePod(R"({"spec":{"overhead":{"memory":"10EE"}}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       R"(spec.overhead.memory: invalid quantity "10EE")"));
}

TEST(JsonCodecTest, ListSkipsItemsThatDoNotDecode) {
  const std::string json = absl::StrCat(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)",
      R"({"metadata":{"name":"ok"}},)",
      R"({"metadata":{"name":"bad","namespace":"ns","resourceVersion":"7"},)",
      R"("spec":{"containers":[{"resources":{"requests":{"memory":"lots"}}}]}},)",
      R"("not a pod",)", R"({"metadata":{"name":"ok2"}}]})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList list, DecodePodList(json));
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0].metadata.name, "ok");
  EXPECT_EQ(list.items[1].metadata.name, "ok2");
  ASSERT_EQ(list.skipped.size(), 2u);
  EXPECT_EQ(list.skipped[0].Key(), "ns/bad");
  EXPECT_EQ(list.skipped[0].resource_version, "7");
  EXPECT_EQ(list.skipped[0].position, "items[1]");
  EXPECT_THAT(
      list.skipped[0].status,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          R"(items[1].spec.containers[0].resources.requests.memory: invalid quantity "lots")"));
  EXPECT_EQ(list.skipped[1].Key(), "");
  EXPECT_EQ(list.skipped[1].position, "items[2]");
  EXPECT_THAT(list.skipped[1].status, StatusIs(absl::StatusCode::kInvalidArgument,
                                               "items[2]: expected object, got string"));
  // Nodes too (a taint without its required effect).
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      NodeList nodes,
      DecodeNodeList(R"({"items":[{"metadata":{"name":"n1"},"spec":{"taints":[{"key":"k"}]}},)"
                     R"({"metadata":{"name":"n2"}}]})"));
  ASSERT_EQ(nodes.items.size(), 1u);
  EXPECT_EQ(nodes.items[0].metadata.name, "n2");
  ASSERT_EQ(nodes.skipped.size(), 1u);
  EXPECT_EQ(nodes.skipped[0].Key(), "n1");
  EXPECT_THAT(nodes.skipped[0].status, StatusIs(absl::StatusCode::kInvalidArgument,
                                                "items[0].spec.taints[0].effect: required"));
  // The list itself must still be a list.
  EXPECT_THAT(
      DecodePodList(R"({"kind":"NodeList","items":[]})"),
      StatusIs(absl::StatusCode::kInvalidArgument, R"(kind: expected "PodList", got "NodeList")"));
  EXPECT_THAT(DecodePodList(R"({"items":{}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, "items: expected array, got object"));
  // "kind: List" (kubectl get -o json) is accepted, and null items are an empty list.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList empty, DecodePodList(R"({"kind":"List","items":null})"));
  EXPECT_TRUE(empty.items.empty());
  EXPECT_TRUE(empty.skipped.empty());
}

TEST(JsonCodecTest, WatchEventErrors) {
  struct TestCase {
    std::string name;
    std::string json;
    std::string message;
  };
  const std::vector<TestCase> cases = {
      {"missing type", R"({"object":{}})", "type: required"},
      {"unknown type", R"({"type":"RENAMED","object":{}})",
       R"(type: unsupported value "RENAMED" (want one of "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"))"},
      {"missing object", R"({"type":"ADDED"})", "object: expected object"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(DecodePodWatchEvent(tc.json),
                StatusIs(absl::StatusCode::kInvalidArgument, tc.message));
  }
}

// An event whose object does not decode is not an error: it comes back with what its
// metadata says, so the informer can skip it and still move its resume point.
TEST(JsonCodecTest, WatchEventWithAnUndecodableObject) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatchEvent<Pod> ev,
      DecodePodWatchEvent(R"({"type":"MODIFIED","object":{"metadata":{"name":"p",)"
                          R"("namespace":"ns","resourceVersion":"42","labels":[]},)"
                          R"("spec":{"nodeName":1}}})"));
  EXPECT_EQ(ev.type, WatchEventType::kModified);
  ASSERT_TRUE(ev.undecodable.has_value());
  EXPECT_EQ(ev.undecodable->Key(), "ns/p");
  EXPECT_EQ(ev.undecodable->resource_version, "42");
  EXPECT_THAT(ev.undecodable->status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "object.metadata.labels: expected object, got array"));
  EXPECT_EQ(ev.object.metadata.name, "p");
  EXPECT_EQ(ev.object.metadata.namespace_name, "ns");
  EXPECT_EQ(ev.object.metadata.resource_version, "42");
  // Nothing readable: still an event, with empty metadata.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatchEvent<Node> node_ev,
      DecodeNodeWatchEvent(R"({"type":"DELETED","object":{"metadata":{"name":7}}})"));
  EXPECT_EQ(node_ev.type, WatchEventType::kDeleted);
  ASSERT_TRUE(node_ev.undecodable.has_value());
  EXPECT_EQ(node_ev.undecodable->Key(), "");
  EXPECT_EQ(node_ev.object.metadata.name, "");
  // An ERROR whose Status does not decode.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Pod> err,
                                DecodePodWatchEvent(R"({"type":"ERROR","object":{"code":"410"}})"));
  EXPECT_EQ(err.type, WatchEventType::kError);
  EXPECT_FALSE(err.error.has_value());
  ASSERT_TRUE(err.undecodable.has_value());
  EXPECT_THAT(err.undecodable->status, StatusIs(absl::StatusCode::kInvalidArgument,
                                                "object.code: expected integer, got string"));
  // A good event has no failure.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      WatchEvent<Pod> good,
      DecodePodWatchEvent(R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"));
  EXPECT_FALSE(good.undecodable.has_value());
}

TEST(JsonCodecTest, MalformedJsonIsAClearError) {
  struct TestCase {
    std::string name;
    std::string json;
    std::string message;
  };
  const std::vector<TestCase> cases = {
      {"empty", "", "invalid JSON at offset 0: The document is empty."},
      {"truncated", R"({"metadata":{"name":"p")",
       "invalid JSON at offset 23: Missing a comma or '}' after an object member."},
      {"garbage", "pod please", "invalid JSON at offset 0: Invalid value."},
      {"trailing garbage", "{} {}",
       "invalid JSON at offset 3: The document root must not be followed by other values."},
      {"embedded NUL", std::string("{\"a\":1}\0{", 9),
       "invalid JSON at offset 7: unexpected NUL byte"},
      {"bad escape", R"({"a":"\x"})",
       "invalid JSON at offset 6: Invalid escape character in string."},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(DecodePod(tc.json), StatusIs(absl::StatusCode::kInvalidArgument, tc.message));
  }
}

TEST(JsonCodecTest, DeepNestingIsBoundedNotACrash) {
  auto nested = [](int depth) {
    std::string json = R"({"ignored":)";
    json.append(depth, '[');
    json.append(depth, ']');
    json.append("}");
    return json;
  };
  // Deep but sane nesting in an ignored field is fine (the root object is level 1).
  TRIMARAN_EXPECT_OK(DecodePod(nested(500)));
  // Hostile nesting is refused at the limit, without recursing further.
  EXPECT_THAT(DecodePod(nested(1000000)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "invalid JSON at offset 523: nesting deeper than 512 levels"));
  EXPECT_THAT(DecodePod(std::string(1000000, '{')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON at offset")));
  EXPECT_THAT(DecodePodList(absl::StrCat(R"({"items":[)", nested(1000000), "]}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "invalid JSON at offset 533: nesting deeper than 512 levels"));
}

TEST(JsonCodecTest, ListSyntaxErrorsAreReportedLikeDocuments) {
  struct TestCase {
    std::string name;
    std::string json;
    std::string message;
  };
  const std::vector<TestCase> cases = {
      {"empty", "", "invalid JSON at offset 0: The document is empty."},
      {"truncated in an item", R"({"items":[{"metadata":{"name":"a"}},{"metadata":)",
       "invalid JSON at offset 48: Invalid value."},
      {"truncated between items", R"({"items":[{},)", "invalid JSON at offset 13: Invalid value."},
      {"missing comma between items", R"({"items":[{} {}]})",
       "invalid JSON at offset 13: Missing a comma or ']' after an array element."},
      {"truncated after items", R"({"items":[])",
       "invalid JSON at offset 11: Missing a comma or '}' after an object member."},
      {"trailing garbage", R"({"items":[]} x)",
       "invalid JSON at offset 13: The document root must not be followed by other values."},
      {"embedded NUL", std::string("{\"items\":[]}\0", 14),
       "invalid JSON at offset 12: unexpected NUL byte"},
      {"not an object", "[]", "expected object, got array"},
      {"metadata after items", R"({"items":[],"metadata":{"resourceVersion":5}})",
       "metadata.resourceVersion: expected string, got number"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(DecodePodList(tc.json), StatusIs(absl::StatusCode::kInvalidArgument, tc.message));
  }
}

TEST(JsonCodecTest, ListFieldsInAnyOrder) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      PodList list,
      DecodePodList(
          R"( { "items" : [ {"metadata":{"name":"a"}} , {"metadata":{"name":"b"}} ] ,)"
          R"( "metadata" : {"resourceVersion":"9"}, "kind" : "PodList", "x": [1, {"y": 2}] } )"));
  EXPECT_EQ(list.metadata.resource_version, "9");
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[1].metadata.name, "b");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList empty, DecodePodList("{}"));
  EXPECT_TRUE(empty.items.empty());
  // A repeated "items" replaces the earlier one, as in a DOM.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      PodList twice, DecodePodList(R"({"items":[{},{}],"items":[{"metadata":{"name":"c"}}]})"));
  ASSERT_EQ(twice.items.size(), 1u);
  EXPECT_EQ(twice.items[0].metadata.name, "c");
}

TEST(JsonCodecTest, EveryTruncationOfARealPodIsAnError) {
  const std::string json = ReadTestdata("pod.json");
  TRIMARAN_ASSERT_OK(DecodePod(json));
  // Trailing whitespace aside, every proper prefix is malformed.
  size_t end = json.find_last_not_of(" \n\r\t") + 1;
  for (size_t n = 0; n < end; ++n) {
    absl::StatusOr<Pod> pod = DecodePod(std::string_view(json.data(), n));
    ASSERT_FALSE(pod.ok()) << "prefix of length " << n << " decoded";
    ASSERT_THAT(pod.status().message(), HasSubstr("invalid JSON at offset")) << n;
  }
}

TEST(JsonCodecTest, RandomCorruptionNeverCrashes) {
  const std::string original = ReadTestdata("pod_list.json");
  std::mt19937 rng(42);
  static constexpr char kBytes[] = "{}[]\":,0123456789.-eE tfnul\\\x01\xff\x80";
  int decoded = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string json = original;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % json.size();
      switch (rng() % 3) {
        case 0:
          json[pos] = kBytes[rng() % (sizeof(kBytes) - 1)];
          break;
        case 1:
          json.erase(pos, 1 + rng() % 8);
          break;
        default:
          json.insert(pos, 1, kBytes[rng() % (sizeof(kBytes) - 1)]);
      }
    }
    absl::StatusOr<PodList> list = DecodePodList(json);
    if (list.ok()) {
      ++decoded;
    } else {
      EXPECT_EQ(list.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
  // Some edits land in ignored strings and still decode; most must not.
  EXPECT_LT(decoded, 2000);
}

// ---------------------------------------------------------------------------------------
// Round trips through the encoder.

Pod FullPod() {
  Pod pod = MakePod()
                .Name("web-1")
                .Namespace("prod")
                .UID("uid-1")
                .ResourceVersion("42")
                .Generation(3)
                .Label("app", "web")
                .Annotation("note", "quotes \" and \\ and unicode \xc3\xa9")
                .CreationTimestamp(absl::FromUnixSeconds(1704164645))
                .OwnerReference("ReplicaSet", "web-abc", "rs-uid")
                .InitReq({{"cpu", "1"}})
                .SidecarReq({{"cpu", "100m"}, {"memory", "64Mi"}})
                .Req({{"cpu", "500m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}})
                .Lim({{"memory", "2Gi"}})
                .HostPort(8080, Protocol::kUDP, "10.0.0.1")
                .Overhead({{"cpu", "250m"}})
                .PodReq({{"cpu", "2"}, {"hugepages-2Mi", "128Mi"}})
                .SchedulerName("trimaran")
                .NodeName("n1")
                .NodeSelector({{"disk", "ssd"}})
                .NodeAffinityIn("zone", {"a", "b"})
                .NodeAffinityNotIn("kubernetes.io/hostname", {"bad"})
                .PreferredNodeAffinity(
                    5, NodeSelectorTerm{{{"gpu", NodeSelectorOperator::kExists, {}}},
                                        {{"metadata.name", NodeSelectorOperator::kIn, {"n1"}}}})
                .PodAffinity("zone", MakeLabelSelector().Label("app", "db").Obj())
                .PodAntiAffinity("kubernetes.io/hostname",
                                 MakeLabelSelector().In("app", {"web"}).NotExist("canary").Obj())
                .PreferredPodAntiAffinity(10, "zone", MakeLabelSelector().Exists("app").Obj())
                .Toleration("dedicated", "web", TaintEffect::kNoSchedule)
                .TolerationExists("", TaintEffect::kAll)
                .SpreadConstraint(1, "zone", UnsatisfiableConstraintAction::kDoNotSchedule,
                                  MakeLabelSelector().Label("app", "web").Obj(), 3)
                .SchedulingGates({"gate-a"})
                .Priority(-5)
                .PriorityClassName("low")
                .PreemptionPolicy(PreemptionPolicy::kNever)
                .HostNetwork()
                .Phase(PodPhase::kRunning)
                .Condition(std::string(kPodScheduled), ConditionStatus::kFalse,
                           std::string(kPodReasonUnschedulable), "0/3 nodes are available")
                .NominatedNodeName("n2")
                .StartTime(absl::FromUnixSeconds(1704164700))
                .Obj();
  pod.metadata.deletion_timestamp = absl::FromUnixSeconds(1704164800);
  pod.spec.tolerations.push_back({"node.kubernetes.io/not-ready", TolerationOperator::kExists, "",
                                  TaintEffect::kNoExecute, 300});
  pod.spec.topology_spread_constraints[0].node_affinity_policy = NodeInclusionPolicy::kIgnore;
  pod.spec.topology_spread_constraints[0].node_taints_policy = NodeInclusionPolicy::kHonor;
  pod.spec.topology_spread_constraints[0].match_label_keys = {"pod-template-hash"};
  pod.spec.affinity->pod_affinity->required[0].namespaces = {"a", "b"};
  pod.spec.affinity->pod_affinity->required[0].namespace_selector = LabelSelector{};
  pod.status.conditions[0].last_transition_time = absl::FromUnixSeconds(1704164646);
  pod.status.conditions[0].last_probe_time = absl::FromUnixSeconds(1704164647);
  pod.status.conditions[0].observed_generation = 3;
  pod.spec.resource_claims = {{.name = "gpu", .resource_claim_template_name = "one-gpu"},
                              {.name = "nic", .resource_claim_name = "shared-nic"}};
  pod.spec.scheduling_group = PodSchedulingGroup{.pod_group_name = "spark-pi-executors"};
  return pod;
}

Node FullNode() {
  Node node = MakeNode()
                  .Name("n1")
                  .UID("node-uid")
                  .ResourceVersion("7")
                  .Label("zone", "a")
                  .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                  .Allocatable({{"cpu", "3800m"},
                                {"memory", "7Gi"},
                                {"pods", "110"},
                                {"nvidia.com/gpu", "2"},
                                {"hugepages-2Mi", "1Gi"}})
                  .Taint("dedicated", "web", TaintEffect::kNoSchedule)
                  .Taint("soft", "", TaintEffect::kPreferNoSchedule)
                  .Unschedulable(true)
                  .Condition("Ready", ConditionStatus::kTrue)
                  .Address("InternalIP", "10.0.0.1")
                  .Image("nginx:1.25", 70000000)
                  .Obj();
  node.spec.taints.push_back({"gone", "", TaintEffect::kNoExecute, absl::FromUnixSeconds(1000)});
  node.spec.pod_cidr = "10.244.0.0/24";
  node.spec.pod_cidrs = {"10.244.0.0/24", "fd00::/64"};
  node.status.conditions[0].last_heartbeat_time = absl::FromUnixSeconds(2000);
  node.status.conditions[0].reason = "KubeletReady";
  return node;
}

TEST(JsonCodecTest, PodRoundTrips) {
  const std::vector<std::pair<std::string, Pod>> cases = {
      {"minimal", MakePod().Name("p").Obj()},
      {"builder requests", MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj()},
      {"everything", FullPod()},
      {"in-place resize status", MakePod()
                                     .Name("p")
                                     .Req({{"cpu", "1"}})
                                     .SidecarReq({{"cpu", "100m"}})
                                     .AllocatedResources("c0", {{"cpu", "2"}})
                                     .ActualResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}})
                                     .ActualResources("sidecar0", {{"cpu", "100m"}})
                                     .PodAllocatedResources({{"cpu", "2100m"}})
                                     .PodActualResources({{"cpu", "2100m"}})
                                     .Condition("PodResizeInProgress", ConditionStatus::kTrue)
                                     .Obj()},
  };
  for (const auto& [name, pod] : cases) {
    SCOPED_TRACE(name);
    const std::string json = EncodePod(pod);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod decoded, DecodePod(json));
    EXPECT_EQ(decoded, pod) << json;
    EXPECT_EQ(EncodePod(decoded), json);
  }
}

TEST(JsonCodecTest, NodeRoundTrips) {
  for (const Node& node : {MakeNode().Name("n").Obj(), FullNode()}) {
    SCOPED_TRACE(node.metadata.name);
    const std::string json = EncodeNode(node);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Node decoded, DecodeNode(json));
    EXPECT_EQ(decoded, node) << json;
  }
}

TEST(JsonCodecTest, RealPodRoundTripsThroughEncoder) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod pod, DecodePod(ReadTestdata("pod.json")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Pod again, DecodePod(EncodePod(pod)));
  EXPECT_EQ(again, pod);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node, DecodeNode(ReadTestdata("node.json")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Node node_again, DecodeNode(EncodeNode(node)));
  EXPECT_EQ(node_again, node);
}

TEST(JsonCodecTest, ListsAndWatchEventsRoundTrip) {
  PodList pods;
  pods.metadata = {"99", "next-page", 12};
  pods.items = {MakePod().Name("a").Obj(), FullPod()};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList pods_again, DecodePodList(EncodePodList(pods)));
  EXPECT_EQ(pods_again, pods);

  NodeList nodes;
  nodes.metadata.resource_version = "100";
  nodes.items = {FullNode()};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeList nodes_again, DecodeNodeList(EncodeNodeList(nodes)));
  EXPECT_EQ(nodes_again, nodes);

  const std::vector<WatchEvent<Pod>> pod_events = {
      {WatchEventType::kAdded, FullPod(), std::nullopt},
      {WatchEventType::kDeleted, MakePod().Name("gone").Obj(), std::nullopt},
      {WatchEventType::kError, Pod{}, ApiStatus{"Failure", "too old", "Expired", 410, "", "", 0}},
  };
  for (const WatchEvent<Pod>& e : pod_events) {
    SCOPED_TRACE(ToString(e.type));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Pod> again,
                                  DecodePodWatchEvent(EncodePodWatchEvent(e)));
    EXPECT_EQ(again, e);
  }
  const WatchEvent<Node> node_event{WatchEventType::kModified, FullNode(), std::nullopt};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatchEvent<Node> node_again,
                                DecodeNodeWatchEvent(EncodeNodeWatchEvent(node_event)));
  EXPECT_EQ(node_again, node_event);
}

TEST(JsonCodecTest, DecodeValueVariantsPrefixThePath) {
  rapidjson::Document doc;
  doc.Parse(
      R"({"pods":[{"spec":{"priority":"x"}}],"node":{"metadata":{"name":"n"}},"st":{"code":404}})");
  ASSERT_FALSE(doc.HasParseError());
  Pod pod;
  EXPECT_THAT(DecodePodValue(doc["pods"][0], "pods[0]", pod),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "pods[0].spec.priority: expected integer, got string"));
  Node node;
  TRIMARAN_EXPECT_OK(DecodeNodeValue(doc["node"], "node", node));
  EXPECT_EQ(node.metadata.name, "n");
  ApiStatus st;
  TRIMARAN_EXPECT_OK(DecodeStatusValue(doc["st"], "", st));
  EXPECT_EQ(st.code, 404);
  EXPECT_THAT(DecodeNodeValue(doc["pods"], "pods", node),
              StatusIs(absl::StatusCode::kInvalidArgument, "pods: expected object, got array"));
}

// ---------------------------------------------------------------------------------------
// What the scheduler writes: exact wire shapes.

TEST(JsonCodecTest, EncodesBinding) {
  const Pod pod = MakePod().Name("web-1").Namespace("default").UID("u-1").Obj();
  Binding binding = MakeBinding(pod.metadata, "n3");
  EXPECT_EQ(
      EncodeBinding(binding),
      R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default",)"
      R"("uid":"u-1"},"target":{"apiVersion":"v1","kind":"Node","name":"n3"}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Binding again, DecodeBinding(EncodeBinding(binding)));
  EXPECT_EQ(again, binding);
}

TEST(JsonCodecTest, EncodesEvent) {
  Event event;
  event.metadata.name = "web-1.17a2b3c4d5e6f708";
  event.metadata.namespace_name = "default";
  event.event_time = absl::FromUnixMicros(1746093600123456);  // 2025-05-01T10:00:00.123456Z
  event.reporting_controller = "trimaran";
  event.reporting_instance = "trimaran-host-1";
  event.action = "Binding";
  event.reason = "Scheduled";
  event.type = std::string(kEventTypeNormal);
  event.regarding = {"v1", "Pod", "default", "web-1", "u-1", "42", ""};
  event.note = "Successfully assigned default/web-1 to n3";
  EXPECT_EQ(
      EncodeEvent(event),
      R"({"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"web-1.17a2b3c4d5e6f708",)"
      R"("namespace":"default"},"eventTime":"2025-05-01T10:00:00.123456Z",)"
      R"("reportingController":"trimaran","reportingInstance":"trimaran-host-1",)"
      R"("action":"Binding","reason":"Scheduled","regarding":{"apiVersion":"v1","kind":"Pod",)"
      R"("namespace":"default","name":"web-1","uid":"u-1","resourceVersion":"42"},)"
      R"("note":"Successfully assigned default/web-1 to n3","type":"Normal"})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Event again, DecodeEvent(EncodeEvent(event)));
  EXPECT_EQ(again, event);

  event.series = EventSeries{3, absl::FromUnixMicros(1746093660000001)};
  event.related = ObjectReference{"v1", "Node", "", "n3", "", "", ""};
  const std::string json = EncodeEvent(event);
  EXPECT_THAT(
      json, HasSubstr(R"("series":{"count":3,"lastObservedTime":"2025-05-01T10:01:00.000001Z"})"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Event again2, DecodeEvent(json));
  EXPECT_EQ(again2, event);
}

TEST(JsonCodecTest, EncodesLease) {
  Lease lease;
  lease.metadata.name = "trimaran-scheduler";
  lease.metadata.namespace_name = "kube-system";
  lease.metadata.resource_version = "184700";
  lease.spec.holder_identity = "host_uuid";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = absl::FromUnixSeconds(1746093600);
  lease.spec.renew_time = absl::FromUnixMicros(1746093902123456);
  lease.spec.lease_transitions = 3;
  EXPECT_EQ(
      EncodeLease(lease),
      R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"trimaran-scheduler",)"
      R"("namespace":"kube-system","resourceVersion":"184700"},"spec":{"holderIdentity":"host_uuid",)"
      R"("leaseDurationSeconds":15,"acquireTime":"2025-05-01T10:00:00.000000Z",)"
      R"("renewTime":"2025-05-01T10:05:02.123456Z","leaseTransitions":3}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Lease again, DecodeLease(EncodeLease(lease)));
  EXPECT_EQ(again, lease);

  // Released: empty holder is written, not omitted.
  Lease released;
  released.metadata.name = "l";
  EXPECT_EQ(EncodeLease(released),
            R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l"},)"
            R"("spec":{"holderIdentity":"","leaseDurationSeconds":0,"leaseTransitions":0}})");
}

TEST(JsonCodecTest, EncodesPodStatusPatch) {
  PodCondition cond;
  cond.type = std::string(kPodScheduled);
  cond.status = ConditionStatus::kFalse;
  cond.reason = std::string(kPodReasonUnschedulable);
  cond.message = "0/3 nodes are available: 3 Insufficient cpu.";
  cond.last_transition_time = absl::FromUnixSeconds(1746093600);

  struct TestCase {
    std::string name;
    PodStatusPatch patch;
    std::string want;
  };
  const std::vector<TestCase> cases = {
      {"first failure",
       {{cond}, std::nullopt, {}},
       R"({"status":{"conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,)"
       R"("lastTransitionTime":"2025-05-01T10:00:00Z","reason":"Unschedulable",)"
       R"("message":"0/3 nodes are available: 3 Insufficient cpu."}]}})"},
      {"with existing conditions and a nomination",
       {{cond}, "n2", {"Initialized", "PodScheduled"}},
       R"({"status":{"$setElementOrder/conditions":[{"type":"Initialized"},{"type":"PodScheduled"}],)"
       R"("conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,)"
       R"("lastTransitionTime":"2025-05-01T10:00:00Z","reason":"Unschedulable",)"
       R"("message":"0/3 nodes are available: 3 Insufficient cpu."}],"nominatedNodeName":"n2"}})"},
      {"clear nomination only", {{}, "", {}}, R"({"status":{"nominatedNodeName":""}})"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    const std::string json = EncodePodStatusPatch(tc.patch);
    EXPECT_EQ(json, tc.want);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(PodStatusPatch again, DecodePodStatusPatch(json));
    EXPECT_EQ(again, tc.patch);
  }
}

TEST(JsonCodecTest, EncodesStatus) {
  const ApiStatus st{"Failure", "pods \"x\" not found", "NotFound", 404, "x", "pods", 0};
  EXPECT_EQ(EncodeStatus(st),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x",)"
            R"("kind":"pods"},"code":404})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ApiStatus again, DecodeStatus(EncodeStatus(st)));
  EXPECT_EQ(again, st);
}

// ---------------------------------------------------------------------------------------
// Timestamps.

TEST(Rfc3339Test, Parses) {
  struct TestCase {
    std::string text;
    int64_t unix_nanos;
  };
  const std::vector<TestCase> cases = {
      {"1970-01-01T00:00:00Z", 0},
      {"2024-01-02T03:04:05Z", 1704164645LL * 1000000000},
      {"2024-02-29T23:59:59Z", 1709251199LL * 1000000000},  // leap day
      {"2025-05-01T10:00:00.123456Z", 1746093600123456000LL},
      {"2025-05-01T10:00:00.1Z", 1746093600100000000LL},
      {"2025-05-01T10:00:00.123456789Z", 1746093600123456789LL},
      {"2025-05-01T10:00:00.1234567891Z", 1746093600123456789LL},  // beyond ns: dropped
      {"2025-05-01T12:00:00+02:00", 1746093600LL * 1000000000},
      {"2025-05-01T05:30:00-04:30", 1746093600LL * 1000000000},
      {"1969-12-31T23:59:59Z", -1000000000LL},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.text);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(absl::Time t, ParseRfc3339(tc.text));
    EXPECT_EQ(absl::ToUnixNanos(t), tc.unix_nanos);
  }
  // Year 1, the zero time of Go, is representable.
  TRIMARAN_EXPECT_OK(ParseRfc3339("0001-01-01T00:00:00Z"));
}

TEST(Rfc3339Test, Rejects) {
  for (const std::string text :
       {"", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02 03:04:05Z", "2024-01-02t03:04:05Z",
        "2024-01-02T03:04:05z", "2024-1-02T03:04:05Z", "2024-00-02T03:04:05Z",
        "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-01-02T24:00:00Z",
        "2024-01-02T03:60:00Z", "2024-01-02T03:04:60Z", "2024-01-02T03:04:05.Z",
        "2024-01-02T03:04:05+0100", "2024-01-02T03:04:05+01:00x", "2024-01-02T03:04:05Zx",
        "2024-01-02T03:04:05+24:00", "abcd-01-02T03:04:05Z"}) {
    SCOPED_TRACE(text);
    EXPECT_THAT(ParseRfc3339(text), StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST(Rfc3339Test, Formats) {
  const absl::Time t = absl::FromUnixNanos(1746093600123456789LL);
  EXPECT_EQ(FormatRfc3339(t), "2025-05-01T10:00:00Z");
  EXPECT_EQ(FormatRfc3339Micro(t), "2025-05-01T10:00:00.123456Z");
  EXPECT_EQ(FormatRfc3339Micro(absl::FromUnixSeconds(0)), "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace trimaran::kube

namespace trimaran::kube {
namespace {

// metav1.Time as Go writes it: four-digit years (zero-padded), and no year beyond 9999
// (UTC), which Go cannot write (found by fuzz/pod_json_fuzzer).
TEST(JsonCodecTimeTest, YearsAreFourDigitsAndStayWithinGoRange) {
  absl::StatusOr<Pod> early =
      DecodePod(R"({"metadata":{"name":"p","creationTimestamp":"0625-01-02T02:59:00Z"}})");
  ASSERT_TRUE(early.ok()) << early.status();
  const std::string encoded = EncodePod(*early);
  EXPECT_NE(encoded.find("\"0625-01-02T02:59:00Z\""), std::string::npos) << encoded;
  absl::StatusOr<Pod> again = DecodePod(encoded);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->metadata.creation_timestamp, early->metadata.creation_timestamp);
  // 9999-12-31T23:00:00-01:00 is the year 10000 in UTC.
  EXPECT_FALSE(
      DecodePod(R"({"metadata":{"name":"p","creationTimestamp":"9999-12-31T23:00:00-01:00"}})")
          .ok());
  EXPECT_TRUE(
      DecodePod(R"({"metadata":{"name":"p","creationTimestamp":"9999-12-31T23:00:00+01:00"}})")
          .ok());
}

}  // namespace
}  // namespace trimaran::kube
