#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using kube::UnsatisfiableConstraintAction;
using kube::testing::MakeLabelSelector;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::trimaran::testing::StatusIs;

constexpr auto kHard = UnsatisfiableConstraintAction::kDoNotSchedule;
constexpr auto kSoft = UnsatisfiableConstraintAction::kScheduleAnyway;

// "S", "U" (Unschedulable), "UAU".
std::string Verdict(const Status& s) {
  if (s.IsSuccess()) return "S";
  if (s.code() == Code::kUnschedulable) {
    EXPECT_EQ(s.Message(), "node(s) didn't match pod topology spread constraints");
    return "U";
  }
  if (s.code() == Code::kUnschedulableAndUnresolvable) {
    EXPECT_EQ(s.Message(),
              "node(s) didn't match pod topology spread constraints (missing required label)");
    return "UAU";
  }
  return "error: " + s.Message();
}

// `counts`: node -> matching pods ("foo" label, namespace default) placed there.
std::vector<kube::Pod> PodsOn(const std::vector<std::pair<std::string, int>>& counts,
                              const std::string& ns = "default") {
  std::vector<kube::Pod> pods;
  for (const auto& [node, n] : counts) {
    for (int i = 0; i < n; ++i) {
      pods.push_back(MakePod()
                         .Name(node + "-" + std::to_string(i) + "-" + ns)
                         .Namespace(ns)
                         .Label("foo", "")
                         .NodeName(node)
                         .Obj());
    }
  }
  return pods;
}

std::vector<kube::Node> ZoneNodes() {
  return {MakeNode().Name("a").Labels({{"zone", "zone1"}, {"node", "a"}}).Obj(),
          MakeNode().Name("b").Labels({{"zone", "zone1"}, {"node", "b"}}).Obj(),
          MakeNode().Name("x").Labels({{"zone", "zone2"}, {"node", "x"}}).Obj(),
          MakeNode().Name("y").Labels({{"zone", "zone2"}, {"node", "y"}}).Obj()};
}

// PreFilter, then Filter on every node: "a:S b:U ...".
std::string RunFilter(const std::vector<kube::Node>& nodes, const std::vector<kube::Pod>& pods,
                      const kube::Pod& pod) {
  auto handle = testing::NewHandleForTest(nodes, pods);
  PodTopologySpread plugin({}, *handle);
  CycleState state;
  PreFilterResult result;
  const std::span<const NodeInfo* const> all = handle->snapshot_lister().NodeInfos().List();
  const Status pre = plugin.PreFilter(state, pod, all, result);
  std::string out;
  for (const NodeInfo* n : all) {
    if (!out.empty()) out += " ";
    out += n->name() + ":" + (pre.IsSkip() ? "S" : Verdict(plugin.Filter(state, pod, *n)));
  }
  return out;
}

kube::testing::PodWrapper Incoming() {
  return MakePod().Name("p").Namespace("default").Label("foo", "");
}
kube::LabelSelector FooExists() { return MakeLabelSelector().Exists("foo").Obj(); }

// Upstream TestSingleConstraint and friends (spec kube-scheduler-constraints.md §3.9).
TEST(PodTopologySpreadTest, Filter) {
  // T1.
  EXPECT_EQ(
      RunFilter(ZoneNodes(), {}, Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj()),
      "a:S b:S x:S y:S");
  // T3: pods of another namespace do not count.
  {
    std::vector<kube::Pod> pods = PodsOn({{"a", 1}, {"x", 1}, {"y", 1}});
    for (const kube::Pod& p : PodsOn({{"a", 1}}, "ns2")) pods.push_back(p);
    EXPECT_EQ(RunFilter(ZoneNodes(), pods,
                        Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj()),
              "a:S b:S x:U y:U");
  }
  // T4: a nil selector matches nothing, itself included.
  {
    kube::Pod pod = Incoming().Obj();
    kube::TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = "zone";
    pod.spec.topology_spread_constraints.push_back(c);
    EXPECT_EQ(RunFilter(ZoneNodes(), PodsOn({{"x", 1}, {"y", 1}}), pod), "a:S b:S x:S y:S");
  }
  // T6: node b has "zon", not "zone".
  {
    std::vector<kube::Node> nodes = ZoneNodes();
    nodes[1] = MakeNode().Name("b").Labels({{"zon", "zone1"}, {"node", "b"}}).Obj();
    EXPECT_EQ(RunFilter(nodes, PodsOn({{"a", 1}, {"b", 1}, {"x", 1}, {"y", 1}}),
                        Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj()),
              "a:S b:UAU x:U y:U");
  }
  // T7: no node has the key.
  EXPECT_EQ(RunFilter({ZoneNodes()[0], ZoneNodes()[2]}, {},
                      Incoming().SpreadConstraint(1, "rack", kHard, FooExists()).Obj()),
            "a:UAU x:UAU");
  const auto t8_pods = PodsOn({{"a", 2}, {"b", 1}, {"y", 3}});
  // T8, T9.
  EXPECT_EQ(RunFilter(ZoneNodes(), t8_pods,
                      Incoming().SpreadConstraint(1, "node", kHard, FooExists()).Obj()),
            "a:U b:U x:S y:U");
  EXPECT_EQ(RunFilter(ZoneNodes(), t8_pods,
                      Incoming().SpreadConstraint(2, "node", kHard, FooExists()).Obj()),
            "a:U b:S x:S y:U");
  // T11: required node affinity node In [a, y]: b and x are not domains, so min = 2.
  EXPECT_EQ(RunFilter(ZoneNodes(), t8_pods,
                      Incoming()
                          .SpreadConstraint(1, "node", kHard, FooExists())
                          .NodeAffinityIn("node", {"a", "y"})
                          .Obj()),
            "a:S b:S x:S y:U");
  // T12: a terminating pod does not count.
  {
    std::vector<kube::Node> nodes = {MakeNode().Name("a").Label("node", "a").Obj(),
                                     MakeNode().Name("b").Label("node", "b").Obj()};
    std::vector<kube::Pod> pods = {
        MakePod().Name("t").Namespace("default").Label("foo", "").NodeName("a").Terminating().Obj(),
        MakePod().Name("l").Namespace("default").Label("foo", "").NodeName("b").Obj()};
    EXPECT_EQ(
        RunFilter(nodes, pods, Incoming().SpreadConstraint(1, "node", kHard, FooExists()).Obj()),
        "a:S b:U");
  }
  // T13, T14: minDomains.
  {
    std::vector<kube::Node> nodes = {MakeNode().Name("a").Label("node", "a").Obj(),
                                     MakeNode().Name("b").Label("node", "b").Obj(),
                                     MakeNode().Name("c").Label("node", "c").Obj()};
    const auto pods = PodsOn({{"a", 2}, {"b", 2}, {"c", 1}});
    EXPECT_EQ(
        RunFilter(nodes, pods, Incoming().SpreadConstraint(2, "node", kHard, FooExists(), 4).Obj()),
        "a:U b:U c:S");
    EXPECT_EQ(
        RunFilter(nodes, pods, Incoming().SpreadConstraint(2, "node", kHard, FooExists(), 2).Obj()),
        "a:S b:S c:S");
  }
  // T15, T16.
  {
    const auto pods = PodsOn({{"a", 1}, {"b", 1}, {"y", 1}});
    EXPECT_EQ(RunFilter(ZoneNodes(), pods,
                        Incoming().SpreadConstraint(2, "zone", kHard, FooExists(), 3).Obj()),
              "a:U b:U x:S y:S");
    EXPECT_EQ(RunFilter(ZoneNodes(), pods,
                        Incoming().SpreadConstraint(2, "zone", kHard, FooExists(), 1).Obj()),
              "a:S b:S x:S y:S");
  }
  // T17, T18: nodeSelector foo="" (y lacks it); nodeAffinityPolicy Honor (default) / Ignore.
  {
    std::vector<kube::Node> nodes = ZoneNodes();
    for (int i = 0; i < 3; ++i) nodes[i].metadata.labels["foo"] = "";
    const auto pods = PodsOn({{"a", 1}, {"b", 1}, {"y", 1}});
    kube::Pod pod = Incoming()
                        .SpreadConstraint(1, "node", kHard, FooExists())
                        .NodeSelector({{"foo", ""}})
                        .Obj();
    EXPECT_EQ(RunFilter(nodes, pods, pod), "a:U b:U x:S y:S");
    pod.spec.topology_spread_constraints[0].node_affinity_policy =
        kube::NodeInclusionPolicy::kIgnore;
    EXPECT_EQ(RunFilter(nodes, pods, pod), "a:U b:U x:S y:U");
  }
  // T19: nodeTaintsPolicy Honor; y is tainted.
  {
    std::vector<kube::Node> nodes = ZoneNodes();
    nodes[3] = MakeNode()
                   .Name("y")
                   .Labels({{"zone", "zone2"}, {"node", "y"}})
                   .Taint("node.kubernetes.io/unschedulable", "", kube::TaintEffect::kNoSchedule)
                   .Obj();
    kube::Pod pod = Incoming().SpreadConstraint(1, "node", kHard, FooExists()).Obj();
    pod.spec.topology_spread_constraints[0].node_taints_policy = kube::NodeInclusionPolicy::kHonor;
    EXPECT_EQ(RunFilter(nodes, PodsOn({{"a", 1}, {"b", 1}, {"y", 1}}), pod), "a:U b:U x:S y:S");
  }
  // T21: two constraints.
  EXPECT_EQ(RunFilter(ZoneNodes(), t8_pods,
                      Incoming()
                          .SpreadConstraint(1, "zone", kHard, FooExists())
                          .SpreadConstraint(1, "node", kHard, FooExists())
                          .Obj()),
            "a:U b:U x:S y:U");
  // matchLabelKeys: only pods with the incoming pod's value count.
  {
    std::vector<kube::Pod> pods = PodsOn({{"a", 2}});
    for (kube::Pod& p : pods) p.metadata.labels["rev"] = "old";
    kube::Pod pod =
        Incoming().Label("rev", "new").SpreadConstraint(1, "node", kHard, FooExists()).Obj();
    EXPECT_EQ(RunFilter(ZoneNodes(), pods, pod), "a:U b:S x:S y:S");
    pod.spec.topology_spread_constraints[0].match_label_keys = {"rev"};
    EXPECT_EQ(RunFilter(ZoneNodes(), pods, pod), "a:S b:S x:S y:S");
  }
}

TEST(PodTopologySpreadTest, AddPodAndRemovePodUpdateTheCounts) {
  auto handle = testing::NewHandleForTest(ZoneNodes(), PodsOn({{"x", 1}}));
  PodTopologySpread plugin({}, *handle);
  const kube::Pod pod = Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj();
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, pod, handle->snapshot_lister().NodeInfos().List(), result)
                  .IsSuccess());
  const NodeInfo* a = *handle->snapshot_lister().NodeInfos().Get("a");
  const NodeInfo* x = *handle->snapshot_lister().NodeInfos().Get("x");
  EXPECT_EQ(Verdict(plugin.Filter(state, pod, *x)), "U");
  const PodInfo added = PodInfo::Create(std::make_shared<const kube::Pod>(PodsOn({{"a", 1}})[0]));
  ASSERT_TRUE(plugin.AddPod(state, pod, added, *a).IsSuccess());
  EXPECT_EQ(Verdict(plugin.Filter(state, pod, *x)), "S");
  ASSERT_TRUE(plugin.RemovePod(state, pod, added, *a).IsSuccess());
  EXPECT_EQ(Verdict(plugin.Filter(state, pod, *x)), "U");
  // Pods of another namespace are ignored.
  const PodInfo other =
      PodInfo::Create(std::make_shared<const kube::Pod>(PodsOn({{"a", 1}}, "ns2")[0]));
  ASSERT_TRUE(plugin.AddPod(state, pod, other, *a).IsSuccess());
  EXPECT_EQ(Verdict(plugin.Filter(state, pod, *x)), "U");
}

// PreScore over `candidates` (all nodes when empty), Score, NormalizeScore.
std::map<std::string, int64_t> RunScore(const std::vector<kube::Node>& nodes,
                                        const std::vector<kube::Pod>& pods, const kube::Pod& pod,
                                        const std::vector<std::string>& candidates = {}) {
  auto handle = testing::NewHandleForTest(nodes, pods);
  PodTopologySpread plugin({}, *handle);
  CycleState state;
  std::vector<const NodeInfo*> feasible;
  for (const NodeInfo* n : handle->snapshot_lister().NodeInfos().List()) {
    if (candidates.empty() ||
        std::find(candidates.begin(), candidates.end(), n->name()) != candidates.end()) {
      feasible.push_back(n);
    }
  }
  EXPECT_TRUE(plugin.PreScore(state, pod, feasible).IsSuccess());
  NodeScoreList scores;
  for (const NodeInfo* n : feasible) {
    scores.push_back({n->name(), plugin.Score(state, pod, *n).score, std::nullopt});
  }
  EXPECT_TRUE(plugin.NormalizeScore(state, pod, scores).IsSuccess());
  std::map<std::string, int64_t> out;
  for (const NodeScore& s : scores) out[std::string(s.name)] = s.score;
  return out;
}

std::vector<kube::Node> HostNodes(const std::vector<std::string>& names) {
  std::vector<kube::Node> nodes;
  for (const std::string& n : names) {
    nodes.push_back(MakeNode().Name(n).Label("kubernetes.io/hostname", n).Obj());
  }
  return nodes;
}

// Upstream TestPodTopologySpreadScore (spec §3.9, P1-P11 without P8's defaulting).
TEST(PodTopologySpreadTest, Score) {
  auto soft = [](int skew, const std::string& key) {
    return Incoming().SpreadConstraint(skew, key, kSoft, FooExists()).Obj();
  };
  using Scores = std::map<std::string, int64_t>;
  EXPECT_EQ(RunScore(HostNodes({"a", "b"}), {}, soft(1, "kubernetes.io/hostname")),
            (Scores{{"a", 100}, {"b", 100}}));  // P1
  EXPECT_EQ(RunScore(HostNodes({"a", "b"}), PodsOn({{"a", 2}, {"b", 1}}),
                     soft(1, "kubernetes.io/hostname"), {"a"}),
            (Scores{{"a", 100}}));  // P2
  const auto p4 = PodsOn({{"a", 2}, {"b", 1}, {"d", 3}});
  EXPECT_EQ(RunScore(HostNodes({"a", "b", "c", "d"}), p4, soft(1, "kubernetes.io/hostname")),
            (Scores{{"a", 20}, {"b", 60}, {"c", 100}, {"d", 0}}));  // P4
  EXPECT_EQ(RunScore(HostNodes({"a", "b", "c", "d"}), p4, soft(2, "kubernetes.io/hostname")),
            (Scores{{"a", 33}, {"b", 66}, {"c", 100}, {"d", 16}}));  // P6
  EXPECT_EQ(
      RunScore(HostNodes({"a", "b", "c", "d"}), PodsOn({{"a", 4}, {"b", 3}, {"c", 2}, {"d", 1}}),
               soft(3, "kubernetes.io/hostname")),
      (Scores{{"a", 44}, {"b", 66}, {"c", 77}, {"d", 100}}));  // P7
  const auto p9 = PodsOn({{"a", 4}, {"b", 2}, {"x", 1}, {"y", 3}});
  EXPECT_EQ(RunScore(HostNodes({"a", "b", "x", "y"}), p9, soft(1, "kubernetes.io/hostname"),
                     {"a", "b", "x"}),
            (Scores{{"a", 33}, {"b", 83}, {"x", 100}}));  // P9
  {
    std::vector<kube::Node> nodes = HostNodes({"a", "b", "x", "y"});
    nodes[1].metadata.labels.clear();
    EXPECT_EQ(RunScore(nodes, p9, soft(1, "kubernetes.io/hostname"), {"a", "b", "x"}),
              (Scores{{"a", 16}, {"b", 0}, {"x", 100}}));  // P10
  }
  {
    const std::vector<kube::Node> nodes = {MakeNode().Name("a").Label("zone", "zone1").Obj(),
                                           MakeNode().Name("b").Label("zone", "zone1").Obj(),
                                           MakeNode().Name("x").Label("zone", "zone2").Obj(),
                                           MakeNode().Name("y").Label("zone", "zone2").Obj()};
    EXPECT_EQ(RunScore(nodes, p9, soft(1, "zone"), {"a", "b", "x"}),
              (Scores{{"a", 75}, {"b", 75}, {"x", 100}}));  // P11
  }
}

// A Service in `ns` selecting `selector`.
std::shared_ptr<kube::SelectorObject> Service(const std::string& ns, const std::string& name,
                                              kube::Labels selector) {
  auto svc = std::make_shared<kube::SelectorObject>();
  svc->metadata.namespace_name = ns;
  svc->metadata.name = name;
  svc->selector = kube::LabelSelector{.match_labels = std::move(selector)};
  return svc;
}

// P8: no constraints of its own, system defaulting, a Service selects the pod: the
// hostname default (maxSkew 3) spreads it; nodes without a zone share the "" zone,
// which Score skips (1.24+).
TEST(PodTopologySpreadTest, SystemDefaultsThroughAService) {
  auto handle = testing::NewHandleForTest(HostNodes({"a", "b", "c", "d"}),
                                          PodsOn({{"a", 4}, {"b", 3}, {"c", 2}, {"d", 1}}));
  handle->objects().Apply(kube::SelectorResource::kServices,
                          Service("default", "foo", {{"foo", ""}}));
  PodTopologySpread plugin({}, *handle);
  CycleState state;
  const std::span<const NodeInfo* const> all = handle->snapshot_lister().NodeInfos().List();
  const kube::Pod pod = Incoming().Obj();
  ASSERT_TRUE(plugin.PreScore(state, pod, all).IsSuccess());
  NodeScoreList scores;
  for (const NodeInfo* n : all) {
    scores.push_back({n->name(), plugin.Score(state, pod, *n).score, std::nullopt});
  }
  ASSERT_TRUE(plugin.NormalizeScore(state, pod, scores).IsSuccess());
  std::map<std::string, int64_t> got;
  for (const NodeScore& s : scores) got[std::string(s.name)] = s.score;
  EXPECT_EQ(got, (std::map<std::string, int64_t>{{"a", 44}, {"b", 66}, {"c", 77}, {"d", 100}}));
  // The system defaults are all ScheduleAnyway: nothing to filter.
  PreFilterResult result;
  EXPECT_TRUE(plugin.PreFilter(state, pod, all, result).IsSkip());

  // A pod no Service selects gets no default constraint.
  const kube::Pod loner = MakePod().Name("q").Namespace("default").Label("other", "").Obj();
  EXPECT_TRUE(plugin.PreScore(state, loner, all).IsSkip());
  // Nor does the same pod in another namespace.
  const kube::Pod elsewhere = MakePod().Name("r").Namespace("other").Label("foo", "").Obj();
  EXPECT_TRUE(plugin.PreScore(state, elsewhere, all).IsSkip());
  // Nor a pod with constraints of its own (only hard ones here: defaults ignored).
  const kube::Pod own = Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj();
  EXPECT_TRUE(plugin.PreScore(state, own, all).IsSkip());
}

// List defaulting with a DoNotSchedule default: Filter enforces it for a pod that a
// ReplicaSet owns, with the ReplicaSet's selector.
TEST(PodTopologySpreadTest, ListDefaultsFilterThroughAReplicaSet) {
  auto handle = testing::NewHandleForTest(ZoneNodes(), PodsOn({{"a", 1}, {"b", 1}, {"x", 1}}));
  auto rs = std::make_shared<kube::SelectorObject>();
  rs->metadata.namespace_name = "default";
  rs->metadata.name = "web-abc";
  rs->selector = FooExists();
  handle->objects().Apply(kube::SelectorResource::kReplicaSets, rs);
  PodTopologySpreadArgs args;
  args.defaulting_type = SpreadDefaultingType::kList;
  args.default_constraints = {{.max_skew = 1, .topology_key = "zone", .when_unsatisfiable = kHard}};
  PodTopologySpread plugin(args, *handle);
  const std::span<const NodeInfo* const> all = handle->snapshot_lister().NodeInfos().List();
  auto verdicts = [&](const kube::Pod& pod) {
    CycleState state;
    PreFilterResult result;
    const Status pre = plugin.PreFilter(state, pod, all, result);
    if (pre.IsSkip()) return std::string("skip");
    std::string out;
    for (const NodeInfo* n : all) {
      if (!out.empty()) out += " ";
      out += n->name() + ":" + Verdict(plugin.Filter(state, pod, *n));
    }
    return out;
  };
  // zone1 = 2, zone2 = 1: only zone2 keeps the skew at 1.
  EXPECT_EQ(verdicts(Incoming().OwnerReference("ReplicaSet", "web-abc").Obj()), "a:U b:U x:S y:S");
  // Not owned by it: no default constraint.
  EXPECT_EQ(verdicts(Incoming().Obj()), "skip");
  EXPECT_EQ(verdicts(Incoming().OwnerReference("ReplicaSet", "other").Obj()), "skip");
}

TEST(PodTopologySpreadTest, SkipsWithoutConstraints) {
  auto handle = testing::NewHandleForTest(ZoneNodes());
  PodTopologySpread plugin({}, *handle);
  CycleState state;
  PreFilterResult result;
  EXPECT_TRUE(
      plugin
          .PreFilter(state, Incoming().Obj(), handle->snapshot_lister().NodeInfos().List(), result)
          .IsSkip());
  EXPECT_TRUE(plugin.PreScore(state, Incoming().Obj(), handle->snapshot_lister().NodeInfos().List())
                  .IsSkip());
}

TEST(PodTopologySpreadTest, Args) {
  auto decode = [](const std::string& yaml) {
    return DecodePodTopologySpreadArgs({YAML::Load(yaml), "args"});
  };
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodTopologySpreadArgs defaults, decode("~"));
  EXPECT_EQ(defaults.defaulting_type, SpreadDefaultingType::kSystem);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      PodTopologySpreadArgs list,
      decode("{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
             "whenUnsatisfiable: ScheduleAnyway}]}"));
  ASSERT_EQ(list.default_constraints.size(), 1u);
  EXPECT_EQ(list.default_constraints[0].topology_key, "zone");
  EXPECT_THAT(decode("{defaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: "
                     "Maybe, labelSelector: {}}]}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "args.defaultConstraints[0].maxSkew: Invalid value: 0: must be greater "
                       "than zero; args.defaultConstraints[0].whenUnsatisfiable: Unsupported "
                       "value: \"Maybe\": supported values: \"DoNotSchedule\", "
                       "\"ScheduleAnyway\"; args.defaultConstraints[0].labelSelector: Forbidden: "
                       "constraint must not define a selector, as they deduced for each pod"));
  EXPECT_THAT(decode("{defaultingType: System, defaultConstraints: [{maxSkew: 1, topologyKey: "
                     "zone, whenUnsatisfiable: DoNotSchedule}]}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "args.defaultingType: Invalid value: \"System\": when .defaultConstraints "
                       "are not empty"));
}

// QueueingHint (spec §3.8).
TEST(PodTopologySpreadTest, QueueingHint) {
  auto handle = testing::NewHandleForTest({}, {});
  PodTopologySpread plugin({}, *handle);
  const QueueingHint kQ = QueueingHint::kQueue;
  const QueueingHint kSkip = QueueingHint::kQueueSkip;
  auto hint = [&](const kube::Pod& pod, const ClusterEvent& event, const EventObjects& objects) {
    absl::StatusOr<QueueingHint> h = plugin.Hint(pod, event, objects);
    EXPECT_TRUE(h.ok()) << h.status();
    return h.value_or(kQ);
  };
  const kube::Pod hard = Incoming().SpreadConstraint(1, "zone", kHard, FooExists()).Obj();
  const kube::Pod soft = Incoming().SpreadConstraint(1, "zone", kSoft, FooExists()).Obj();
  auto assigned = [](const std::string& ns, bool foo) {
    kube::testing::PodWrapper w = MakePod().Name("e").Namespace(ns).NodeName("a");
    if (foo) w.Label("foo", "");
    return w.Obj();
  };
  const kube::Pod match = assigned("default", true);
  const kube::Pod other = assigned("default", false);
  const kube::Pod elsewhere = assigned("other-ns", true);
  const kube::Pod pending = MakePod().Name("e").Namespace("default").Label("foo", "").Obj();

  EXPECT_EQ(hint(hard, kAssignedPodAddEvent, {.new_pod = &match}), kQ);
  EXPECT_EQ(hint(hard, kAssignedPodAddEvent, {.new_pod = &other}), kSkip);
  EXPECT_EQ(hint(hard, kAssignedPodAddEvent, {.new_pod = &elsewhere}), kSkip);
  EXPECT_EQ(hint(hard, kAssignedPodAddEvent, {.new_pod = &pending}), kSkip);
  EXPECT_EQ(hint(hard, kAssignedPodDeleteEvent, {.old_pod = &match}), kQ);
  EXPECT_EQ(hint(hard, kAssignedPodDeleteEvent, {.old_pod = &other}), kSkip);
  // Soft constraints never reject: nothing to queue for.
  EXPECT_EQ(hint(soft, kAssignedPodAddEvent, {.new_pod = &match}), kSkip);
  const ClusterEvent update{EventResource::kPod, ActionType::kUpdatePodLabel, "PodLabel"};
  EXPECT_EQ(hint(hard, update, {.old_pod = &other, .new_pod = &match}), kQ);
  EXPECT_EQ(hint(hard, update, {.old_pod = &match, .new_pod = &other}), kQ);
  kube::Pod relabelled = match;
  relabelled.metadata.labels["extra"] = "1";
  EXPECT_EQ(hint(hard, update, {.old_pod = &match, .new_pod = &relabelled}), kSkip);
  EXPECT_EQ(hint(hard, update, {.old_pod = &match, .new_pod = &match}), kSkip);

  const kube::Node zoned = MakeNode().Name("n").Label("zone", "z1").Obj();
  const kube::Node bare = MakeNode().Name("n").Obj();
  EXPECT_EQ(hint(hard, kNodeAddEvent, {.new_node = &zoned}), kQ);
  EXPECT_EQ(hint(hard, kNodeAddEvent, {.new_node = &bare}), kSkip);
  EXPECT_EQ(hint(hard, kNodeDeleteEvent, {.old_node = &zoned}), kQ);
  EXPECT_EQ(hint(hard, kNodeDeleteEvent, {.old_node = &bare}), kSkip);
  // No hard constraint counts as carrying every key.
  EXPECT_EQ(hint(soft, kNodeAddEvent, {.new_node = &bare}), kQ);
}

}  // namespace
}  // namespace trimaran::sched::plugins
