#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeLabelSelector;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

const Status kAffinityFail =
    Status::UnschedulableAndUnresolvable("node(s) didn't match pod affinity rules")
        .WithPlugin("InterPodAffinity");
const Status kAntiAffinityFail =
    Status::Unschedulable("node(s) didn't match pod anti-affinity rules")
        .WithPlugin("InterPodAffinity");
const Status kExistingAntiAffinityFail =
    Status::Unschedulable("node(s) didn't satisfy existing pods anti-affinity rules")
        .WithPlugin("InterPodAffinity");

kube::LabelSelector SecurityIn(std::vector<std::string> values) {
  return MakeLabelSelector().In("service", std::move(values)).Obj();
}

// PreFilter over the snapshot, then Filter on `node` (a Skip from PreFilter means the
// runtime does not run Filter: Success).
Status RunFilter(InterPodAffinity& plugin, testing::FakeHandle& handle, const kube::Pod& pod,
                 const std::string& node) {
  CycleState state;
  PreFilterResult result;
  const Status pre =
      plugin.PreFilter(state, pod, handle.snapshot_lister().NodeInfos().List(), result);
  if (pre.IsSkip()) return Status::Success();
  if (!pre.IsSuccess()) return pre;
  const NodeInfo* info = *handle.snapshot_lister().NodeInfos().Get(node);
  return plugin.Filter(state, pod, *info);
}

// Upstream TestRequiredAffinitySingleNode (spec kube-scheduler-constraints.md §2.9).
TEST(InterPodAffinityTest, RequiredAffinitySingleNode) {
  const kube::Node machine1 =
      MakeNode().Name("machine1").Labels({{"region", "r1"}, {"zone", "z11"}}).Obj();
  kube::Pod diff_ns_affinity = MakePod().Name("x").Namespace("ns").Obj();
  {
    kube::PodAffinityTerm t;
    t.label_selector = SecurityIn({"securityscan", "value2"});
    t.namespaces = {"DiffNameSpace"};
    t.topology_key = "";
    diff_ns_affinity.spec.affinity.emplace().pod_affinity.emplace().required.push_back(t);
  }
  struct Case {
    std::string name;
    kube::Pod pod;
    std::vector<kube::Pod> existing;
    Status want;
  };
  const kube::Pod scan_on_m1 = MakePod()
                                   .Name("e")
                                   .Namespace("ns")
                                   .Labels({{"service", "securityscan"}})
                                   .NodeName("machine1")
                                   .Obj();
  const std::vector<Case> cases = {
      {"A1 no affinity", MakePod().Name("x").Namespace("ns").Obj(), {}, Status::Success()},
      {"A2 affinity satisfied in region",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .Labels({{"security", "S1"}})
           .PodAffinity("region", SecurityIn({"securityscan", "value2"}))
           .Obj(),
       {scan_on_m1},
       Status::Success()},
      {"A4 other namespace, empty topology key", diff_ns_affinity, {scan_on_m1}, kAffinityFail},
      {"A5 no match and no self-affinity bootstrap",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .Labels({{"service", "securityscan"}})
           .PodAffinity("region", SecurityIn({"antivirusscan", "value2"}))
           .Obj(),
       {scan_on_m1},
       kAffinityFail},
      {"A7 affinity and an anti-affinity on a key the node lacks",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .PodAffinity("region", SecurityIn({"securityscan", "value2"}))
           .PodAntiAffinity("node", SecurityIn({"antivirusscan", "value2"}))
           .Obj(),
       {scan_on_m1},
       Status::Success()},
      {"A8 anti-affinity in zone violated",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .PodAffinity("region", SecurityIn({"securityscan", "value2"}))
           .PodAntiAffinity("zone", SecurityIn({"securityscan", "value2"}))
           .Obj(),
       {scan_on_m1},
       kAntiAffinityFail},
      {"A9 existing pod's anti-affinity",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .Labels({{"service", "securityscan"}})
           .PodAffinity("region", SecurityIn({"securityscan", "value2"}))
           .PodAntiAffinity("node", SecurityIn({"antivirusscan", "value2"}))
           .Obj(),
       {MakePod()
            .Name("e")
            .Namespace("ns")
            .Labels({{"service", "securityscan"}})
            .PodAntiAffinity("zone", SecurityIn({"securityscan", "value2"}))
            .NodeName("machine1")
            .Obj()},
       kExistingAntiAffinityFail},
      {"A10 the only match is on a node outside the snapshot",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .Labels({{"service", "securityscan"}})
           .PodAffinity("region",
                        MakeLabelSelector().NotIn("service", {"securityscan", "value2"}).Obj())
           .Obj(),
       {MakePod()
            .Name("e")
            .Namespace("ns")
            .Labels({{"service", "antivirusscan"}})
            .NodeName("machine2")
            .Obj()},
       kAffinityFail},
      {"A11 existing anti-affinity, incoming pod without terms",
       MakePod().Name("x").Namespace("ns").Labels({{"service", "securityscan"}}).Obj(),
       {MakePod()
            .Name("e")
            .Namespace("ns")
            .PodAntiAffinity("zone", SecurityIn({"securityscan", "value2"}))
            .NodeName("machine1")
            .Obj()},
       kExistingAntiAffinityFail},
      {"self-affinity bootstrap: first pod of its group",
       MakePod()
           .Name("x")
           .Namespace("ns")
           .Labels({{"service", "securityscan"}})
           .PodAffinity("region", SecurityIn({"securityscan"}))
           .Obj(),
       {},
       Status::Success()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto handle = testing::NewHandleForTest({machine1}, c.existing);
    InterPodAffinity plugin({}, *handle);
    EXPECT_EQ(RunFilter(plugin, *handle, c.pod, "machine1"), c.want);
  }
}

// A namespace known to the plugin (the namespace informer's view).
void AddNamespace(testing::FakeHandle& handle, const std::string& name, kube::Labels labels) {
  auto ns = std::make_shared<kube::SelectorObject>();
  ns->metadata.name = name;
  ns->metadata.labels = std::move(labels);
  handle.objects().Apply(kube::SelectorResource::kNamespaces, ns);
}

// namespaceSelector, both directions: the incoming pod's term resolved to the namespaces
// whose labels match, and an existing pod's term matched against the labels of the
// incoming pod's namespace.
TEST(InterPodAffinityTest, NamespaceSelector) {
  const kube::Node machine1 = MakeNode().Name("machine1").Label("region", "r1").Obj();
  const kube::Pod scanner = MakePod()
                                .Name("scanner")
                                .Namespace("team-a")
                                .Label("service", "securityscan")
                                .NodeName("machine1")
                                .Obj();
  auto handle = testing::NewHandleForTest({machine1}, {scanner});
  AddNamespace(*handle, "team-a", {{"team", "a"}});
  AddNamespace(*handle, "team-b", {{"team", "b"}});
  InterPodAffinity plugin({}, *handle);

  auto with_ns_selector = [](kube::LabelSelector ns_selector) {
    kube::Pod pod = MakePod().Name("x").Namespace("team-b").Obj();
    kube::PodAffinityTerm t;
    t.label_selector = SecurityIn({"securityscan"});
    t.topology_key = "region";
    t.namespace_selector = std::move(ns_selector);
    pod.spec.affinity.emplace().pod_affinity.emplace().required.push_back(t);
    return pod;
  };
  // team=a selects the scanner's namespace: affinity satisfied on machine1.
  EXPECT_EQ(RunFilter(plugin, *handle,
                      with_ns_selector(MakeLabelSelector().In("team", {"a"}).Obj()), "machine1"),
            Status::Success());
  // team=b selects only the pod's own namespace, where no scanner runs.
  EXPECT_EQ(RunFilter(plugin, *handle,
                      with_ns_selector(MakeLabelSelector().In("team", {"b"}).Obj()), "machine1"),
            kAffinityFail);
  // {} selects every namespace.
  EXPECT_EQ(RunFilter(plugin, *handle, with_ns_selector(kube::LabelSelector{}), "machine1"),
            Status::Success());
  // A label no namespace has.
  EXPECT_EQ(RunFilter(plugin, *handle,
                      with_ns_selector(MakeLabelSelector().In("team", {"c"}).Obj()), "machine1"),
            kAffinityFail);

  // The other direction: an existing pod's anti-affinity whose namespaceSelector picks
  // team=b namespaces rejects an incoming team-b pod, not a team-a one.
  kube::Pod guard = MakePod().Name("guard").Namespace("team-a").NodeName("machine1").Obj();
  {
    kube::PodAffinityTerm t;
    t.label_selector = SecurityIn({"web"});
    t.topology_key = "region";
    t.namespace_selector = MakeLabelSelector().In("team", {"b"}).Obj();
    guard.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(t);
  }
  auto handle2 = testing::NewHandleForTest({machine1}, {guard});
  AddNamespace(*handle2, "team-a", {{"team", "a"}});
  AddNamespace(*handle2, "team-b", {{"team", "b"}});
  InterPodAffinity plugin2({}, *handle2);
  EXPECT_EQ(
      RunFilter(plugin2, *handle2,
                MakePod().Name("w").Namespace("team-b").Label("service", "web").Obj(), "machine1"),
      kExistingAntiAffinityFail);
  EXPECT_EQ(
      RunFilter(plugin2, *handle2,
                MakePod().Name("w").Namespace("team-a").Label("service", "web").Obj(), "machine1"),
      Status::Success());
}

// matchLabelKeys / mismatchLabelKeys: the term only reaches pods with the same (other)
// value of the listed labels as the pod that carries the term.
TEST(InterPodAffinityTest, MatchAndMismatchLabelKeys) {
  const kube::Node n1 = MakeNode().Name("n1").Label("zone", "a").Obj();
  const kube::Node n2 = MakeNode().Name("n2").Label("zone", "b").Obj();
  const kube::Pod v1 = MakePod()
                           .Name("v1")
                           .Namespace("default")
                           .Labels({{"app", "web"}, {"rev", "1"}})
                           .NodeName("n1")
                           .Obj();
  const kube::Pod v2 = MakePod()
                           .Name("v2")
                           .Namespace("default")
                           .Labels({{"app", "web"}, {"rev", "2"}})
                           .NodeName("n2")
                           .Obj();
  auto handle = testing::NewHandleForTest({n1, n2}, {v1, v2});
  InterPodAffinity plugin({}, *handle);
  auto incoming = [](std::vector<std::string> match, std::vector<std::string> mismatch) {
    kube::Pod p =
        MakePod().Name("x").Namespace("default").Labels({{"app", "web"}, {"rev", "2"}}).Obj();
    kube::PodAffinityTerm t;
    t.label_selector = MakeLabelSelector().Label("app", "web").Obj();
    t.topology_key = "zone";
    t.match_label_keys = std::move(match);
    t.mismatch_label_keys = std::move(mismatch);
    p.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(t);
    return p;
  };
  // Plain: web pods in both zones -> anti-affinity rejects both nodes.
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({}, {}), "n1"), kAntiAffinityFail);
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({}, {}), "n2"), kAntiAffinityFail);
  // matchLabelKeys [rev]: only rev=2 pods count (v2 on n2).
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({"rev"}, {}), "n1"), Status::Success());
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({"rev"}, {}), "n2"), kAntiAffinityFail);
  // mismatchLabelKeys [rev]: only rev!=2 pods count (v1 on n1).
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({}, {"rev"}), "n1"), kAntiAffinityFail);
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({}, {"rev"}), "n2"), Status::Success());
  // A key the pod lacks is ignored.
  EXPECT_EQ(RunFilter(plugin, *handle, incoming({"missing"}, {}), "n1"), kAntiAffinityFail);
}

TEST(InterPodAffinityTest, PreFilterSkipsWithoutTermsAndRejectsBadSelectors) {
  auto handle = testing::NewHandleForTest({MakeNode().Name("n1").Labels({{"zone", "a"}}).Obj()});
  InterPodAffinity plugin({}, *handle);
  CycleState state;
  PreFilterResult result;
  EXPECT_TRUE(plugin
                  .PreFilter(state, MakePod().Name("x").Obj(),
                             handle->snapshot_lister().NodeInfos().List(), result)
                  .IsSkip());
  kube::LabelSelector bad;
  bad.match_expressions = {{"service", kube::LabelSelectorOperator::kIn, {}}};
  const Status s = plugin.PreFilter(state, MakePod().Name("x").PodAffinity("zone", bad).Obj(),
                                    handle->snapshot_lister().NodeInfos().List(), result);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(s.Message(), HasSubstr("parsing pod: "));
}

// AddPod/RemovePod keep the PreFilter state as if the pod were placed (nominated pods).
TEST(InterPodAffinityTest, AddPodAndRemovePodUpdateTheCounts) {
  const kube::Node n1 = MakeNode().Name("n1").Labels({{"zone", "a"}}).Obj();
  const kube::Node n2 = MakeNode().Name("n2").Labels({{"zone", "b"}}).Obj();
  auto handle = testing::NewHandleForTest({n1, n2});
  InterPodAffinity plugin({}, *handle);
  const kube::Pod x = MakePod()
                          .Name("x")
                          .Namespace("ns")
                          .PodAntiAffinity("zone", MakeLabelSelector().Label("app", "db").Obj())
                          .Obj();
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(
      plugin.PreFilter(state, x, handle->snapshot_lister().NodeInfos().List(), result).IsSuccess());
  const NodeInfo* info1 = *handle->snapshot_lister().NodeInfos().Get("n1");
  const NodeInfo* info2 = *handle->snapshot_lister().NodeInfos().Get("n2");
  EXPECT_EQ(plugin.Filter(state, x, *info1), Status::Success());
  const PodInfo db = PodInfo::Create(std::make_shared<const kube::Pod>(
      MakePod().Name("db").Namespace("ns").Labels({{"app", "db"}}).NodeName("n1").Obj()));
  ASSERT_TRUE(plugin.AddPod(state, x, db, *info1).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, x, *info1), kAntiAffinityFail);
  EXPECT_EQ(plugin.Filter(state, x, *info2), Status::Success());
  ASSERT_TRUE(plugin.RemovePod(state, x, db, *info1).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, x, *info1), Status::Success());

  // A clone is independent.
  ASSERT_TRUE(plugin.AddPod(state, x, db, *info1).IsSuccess());
  std::unique_ptr<CycleState> clone = state.Clone();
  ASSERT_TRUE(plugin.RemovePod(*clone, x, db, *info1).IsSuccess());
  EXPECT_EQ(plugin.Filter(*clone, x, *info1), Status::Success());
  EXPECT_EQ(plugin.Filter(state, x, *info1), kAntiAffinityFail);
}

// PreScore over all snapshot nodes, Score each node, NormalizeScore. std::nullopt: Skip.
std::optional<std::map<std::string, int64_t>> RunScore(
    const InterPodAffinityArgs& args, const std::vector<kube::Node>& nodes,
    const std::vector<kube::Pod>& existing, const kube::Pod& pod,
    std::map<std::string, int64_t>* raw = nullptr) {
  auto handle = testing::NewHandleForTest(nodes, existing);
  InterPodAffinity plugin(args, *handle);
  CycleState state;
  std::span<const NodeInfo* const> all = handle->snapshot_lister().NodeInfos().List();
  const Status pre = plugin.PreScore(state, pod, all);
  if (pre.IsSkip()) return std::nullopt;
  EXPECT_TRUE(pre.IsSuccess()) << pre;
  NodeScoreList scores;
  for (const NodeInfo* n : all) {
    ScoreResult r = plugin.Score(state, pod, *n);
    EXPECT_TRUE(r.status.IsSuccess());
    scores.push_back({n->name(), r.score, std::nullopt});
    if (raw != nullptr) (*raw)[n->name()] = r.score;
  }
  EXPECT_TRUE(plugin.NormalizeScore(state, pod, scores).IsSuccess());
  std::map<std::string, int64_t> out;
  for (const NodeScore& s : scores) out[std::string(s.name)] = s.score;
  return out;
}

kube::Pod PodOn(const std::string& name, const std::string& node, const std::string& security) {
  return MakePod()
      .Name(name)
      .Namespace("default")
      .Labels({{"security", security}})
      .NodeName(node)
      .Obj();
}

kube::LabelSelector Security(std::vector<std::string> values) {
  return MakeLabelSelector().In("security", std::move(values)).Obj();
}

// Upstream TestPreferredAffinity (spec §2.9, S1-S5).
TEST(InterPodAffinityTest, PreferredAffinity) {
  const kube::Node china = MakeNode().Name("n1").Labels({{"region", "China"}}).Obj();
  const kube::Node india = MakeNode().Name("n2").Labels({{"region", "India"}}).Obj();
  const kube::Node az1 = MakeNode().Name("n3").Labels({{"az", "az1"}}).Obj();
  const kube::Pod stay_with_s1 = MakePod()
                                     .Name("x")
                                     .Namespace("default")
                                     .PreferredPodAffinity(5, "region", Security({"S1"}))
                                     .Obj();

  // S1: no affinity anywhere -> Skip.
  EXPECT_EQ(RunScore({}, {china, india, az1}, {PodOn("a", "n1", "S1")},
                     MakePod().Name("x").Namespace("default").Labels({{"security", "S1"}}).Obj()),
            std::nullopt);
  // S2.
  EXPECT_EQ(RunScore({}, {china, india, az1},
                     {PodOn("a", "n1", "S1"), PodOn("b", "n2", "S2"), PodOn("c", "n3", "S1")},
                     stay_with_s1),
            (std::map<std::string, int64_t>{{"n1", 100}, {"n2", 0}, {"n3", 0}}));
  // S3: the topology value is shared by n1 and n2.
  EXPECT_EQ(
      RunScore({},
               {china, MakeNode().Name("n2").Labels({{"region", "China"}, {"az", "az1"}}).Obj(),
                MakeNode().Name("n3").Labels({{"region", "India"}}).Obj()},
               {PodOn("a", "n1", "S1")}, stay_with_s1),
      (std::map<std::string, int64_t>{{"n1", 100}, {"n2", 100}, {"n3", 0}}));
  // S4.
  {
    std::vector<kube::Node> nodes;
    for (const auto& [n, r] : std::vector<std::pair<std::string, std::string>>{
             {"n1", "China"}, {"n2", "India"}, {"n3", "China"}, {"n4", "China"}, {"n5", "India"}}) {
      nodes.push_back(MakeNode().Name(n).Labels({{"region", r}}).Obj());
    }
    const kube::Pod x = MakePod()
                            .Name("x")
                            .Namespace("default")
                            .PreferredPodAffinity(6, "region", Security({"S2"}))
                            .Obj();
    EXPECT_EQ(RunScore({}, nodes,
                       {PodOn("a", "n1", "S2"), PodOn("b", "n1", "S2"), PodOn("c", "n2", "S2"),
                        PodOn("d", "n3", "S2"), PodOn("e", "n4", "S2"), PodOn("f", "n5", "S2")},
                       x),
              (std::map<std::string, int64_t>{
                  {"n1", 100}, {"n2", 0}, {"n3", 100}, {"n4", 100}, {"n5", 0}}));
  }
  // S5: two terms, each evaluated on its own.
  {
    const kube::Pod x =
        MakePod()
            .Name("x")
            .Namespace("default")
            .PreferredPodAffinity(
                8, "region",
                MakeLabelSelector().NotIn("security", {"S1"}).In("security", {"S2"}).Obj())
            .PreferredPodAffinity(2, "region",
                                  MakeLabelSelector().Exists("security").NotExist("wrongkey").Obj())
            .Obj();
    std::map<std::string, int64_t> raw;
    EXPECT_EQ(
        RunScore({}, {china, india, az1},
                 {PodOn("a", "n1", "S1"), PodOn("b", "n2", "S2"), PodOn("c", "n3", "S1")}, x, &raw),
        (std::map<std::string, int64_t>{{"n1", 20}, {"n2", 100}, {"n3", 0}}));
    EXPECT_EQ(raw, (std::map<std::string, int64_t>{{"n1", 2}, {"n2", 10}, {"n3", 0}}));
  }
}

TEST(InterPodAffinityTest, ExistingPodsTermsScoreTheIncomingPod) {
  const kube::Node n1 = MakeNode().Name("n1").Labels({{"zone", "a"}}).Obj();
  const kube::Node n2 = MakeNode().Name("n2").Labels({{"zone", "b"}}).Obj();
  const kube::Node n3 = MakeNode().Name("n3").Labels({{"zone", "c"}}).Obj();
  const kube::Pod x = MakePod().Name("x").Namespace("default").Labels({{"app", "web"}}).Obj();
  const kube::LabelSelector web = MakeLabelSelector().Label("app", "web").Obj();
  // n1: a pod that requires web nearby (hardPodAffinityWeight); n2: prefers web away.
  const std::vector<kube::Pod> existing = {
      MakePod().Name("cache").Namespace("default").PodAffinity("zone", web).NodeName("n1").Obj(),
      MakePod()
          .Name("batch")
          .Namespace("default")
          .PreferredPodAntiAffinity(10, "zone", web)
          .NodeName("n2")
          .Obj()};
  std::map<std::string, int64_t> raw;
  InterPodAffinityArgs args;
  args.hard_pod_affinity_weight = 5;
  EXPECT_EQ(RunScore(args, {n1, n2, n3}, existing, x, &raw),
            (std::map<std::string, int64_t>{{"n1", 100}, {"n2", 0}, {"n3", 66}}));
  EXPECT_EQ(raw, (std::map<std::string, int64_t>{{"n1", 5}, {"n2", -10}, {"n3", 0}}));
  // hardPodAffinityWeight 0: the required term no longer scores.
  args.hard_pod_affinity_weight = 0;
  EXPECT_EQ(RunScore(args, {n1, n2, n3}, existing, x, &raw),
            (std::map<std::string, int64_t>{{"n1", 100}, {"n2", 0}, {"n3", 100}}));
  // ignorePreferredTermsOfExistingPods with no preferred terms of its own: Skip.
  args.ignore_preferred_terms_of_existing_pods = true;
  EXPECT_EQ(RunScore(args, {n1, n2, n3}, existing, x), std::nullopt);
}

TEST(InterPodAffinityTest, Args) {
  auto decode = [](const std::string& yaml) {
    return DecodeInterPodAffinityArgs({YAML::Load(yaml), "args"});
  };
  TRIMARAN_ASSERT_OK_AND_ASSIGN(InterPodAffinityArgs defaults, decode("~"));
  EXPECT_EQ(defaults, InterPodAffinityArgs{});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(InterPodAffinityArgs set,
                                decode("{kind: InterPodAffinityArgs, hardPodAffinityWeight: 7, "
                                       "ignorePreferredTermsOfExistingPods: true}"));
  EXPECT_EQ(set.hard_pod_affinity_weight, 7);
  EXPECT_TRUE(set.ignore_preferred_terms_of_existing_pods);
  EXPECT_THAT(decode("{hardPodAffinityWeight: 101, foo: 1}"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "args.hardPodAffinityWeight: Invalid value: 101: not in valid range "
                       "[0-100]; args.foo: unknown field"));
}

// QueueingHint (spec §2.7, with kubernetes#134393 fixed).
TEST(InterPodAffinityTest, QueueingHint) {
  auto handle = testing::NewHandleForTest({}, {});
  InterPodAffinity plugin({}, *handle);
  const QueueingHint kQ = QueueingHint::kQueue;
  const QueueingHint kSkip = QueueingHint::kQueueSkip;
  auto hint = [&](const kube::Pod& pod, const ClusterEvent& event, const EventObjects& objects) {
    absl::StatusOr<QueueingHint> h = plugin.Hint(pod, event, objects);
    EXPECT_TRUE(h.ok()) << h.status();
    return h.value_or(kQ);
  };
  const kube::Pod affine =
      MakePod().Name("x").Namespace("ns").PodAffinity("zone", SecurityIn({"db"})).Obj();
  const kube::Pod anti = MakePod()
                             .Name("x")
                             .Namespace("ns")
                             .Label("service", "web")
                             .PodAntiAffinity("zone", SecurityIn({"db"}))
                             .Obj();
  const kube::Pod plain = MakePod().Name("x").Namespace("ns").Label("service", "web").Obj();
  auto assigned = [](const std::string& service) {
    return MakePod().Name("e").Namespace("ns").Label("service", service).NodeName("n1").Obj();
  };
  const kube::Pod db = assigned("db");
  const kube::Pod cache = assigned("cache");
  const kube::Pod unassigned_db = MakePod().Name("e").Namespace("ns").Label("service", "db").Obj();

  // Added pods: only a match of the required affinity helps.
  EXPECT_EQ(hint(affine, kAssignedPodAddEvent, {.new_pod = &db}), kQ);
  EXPECT_EQ(hint(affine, kAssignedPodAddEvent, {.new_pod = &cache}), kSkip);
  EXPECT_EQ(hint(affine, kAssignedPodAddEvent, {.new_pod = &unassigned_db}), kSkip);
  EXPECT_EQ(hint(anti, kAssignedPodAddEvent, {.new_pod = &db}), kSkip);
  // Relabelled: newly matching the affinity, or no longer matching the anti-affinity.
  const ClusterEvent update{EventResource::kPod, ActionType::kUpdatePodLabel, "PodLabel"};
  EXPECT_EQ(hint(affine, update, {.old_pod = &cache, .new_pod = &db}), kQ);
  EXPECT_EQ(hint(affine, update, {.old_pod = &db, .new_pod = &cache}), kSkip);
  EXPECT_EQ(hint(anti, update, {.old_pod = &db, .new_pod = &cache}), kQ);
  EXPECT_EQ(hint(anti, update, {.old_pod = &cache, .new_pod = &db}), kSkip);
  // Deleted: a pod that tripped the anti-affinity.
  EXPECT_EQ(hint(anti, kAssignedPodDeleteEvent, {.old_pod = &db}), kQ);
  EXPECT_EQ(hint(anti, kAssignedPodDeleteEvent, {.old_pod = &cache}), kSkip);
  EXPECT_EQ(hint(plain, kAssignedPodDeleteEvent, {.old_pod = &db}), kSkip);
  // kubernetes#134393: the deleted pod's own anti-affinity rejected the pod (upstream
  // says QueueSkip and the pod waits for the 5-minute flush).
  const kube::Pod guard = MakePod()
                              .Name("guard")
                              .Namespace("ns")
                              .NodeName("n1")
                              .PodAntiAffinity("zone", SecurityIn({"web"}))
                              .Obj();
  EXPECT_EQ(hint(plain, kAssignedPodDeleteEvent, {.old_pod = &guard}), kQ);
  EXPECT_EQ(hint(affine, kAssignedPodDeleteEvent, {.old_pod = &guard}), kSkip);  // not "web"

  // Nodes. A new node: queue unless the pod's required affinity needs a key it lacks.
  const kube::Node zoned = MakeNode().Name("n").Label("zone", "z1").Obj();
  const kube::Node bare = MakeNode().Name("n").Obj();
  EXPECT_EQ(hint(affine, kNodeAddEvent, {.new_node = &zoned}), kQ);
  EXPECT_EQ(hint(affine, kNodeAddEvent, {.new_node = &bare}), kSkip);
  EXPECT_EQ(hint(plain, kNodeAddEvent, {.new_node = &bare}), kQ);  // existing anti-affinity
  // Updated: a label change queues; a taint change on a node without the pod's keys
  // does not.
  const ClusterEvent label{EventResource::kNode, ActionType::kUpdateNodeLabel, "NodeLabel"};
  const ClusterEvent taint{EventResource::kNode, ActionType::kUpdateNodeTaint, "NodeTaint"};
  EXPECT_EQ(hint(affine, label, {.old_node = &bare, .new_node = &zoned}), kQ);
  EXPECT_EQ(hint(affine, taint, {.old_node = &bare, .new_node = &bare}), kSkip);
  EXPECT_EQ(hint(anti, taint, {.old_node = &zoned, .new_node = &zoned}), kQ);

  // A pod whose own terms do not parse: the error queues (the queue's rule).
  kube::Pod bad = MakePod().Name("bad").Namespace("ns").Obj();
  {
    kube::PodAffinityTerm t;
    t.label_selector = MakeLabelSelector().In("k", {}).Obj();
    t.topology_key = "zone";
    bad.spec.affinity.emplace().pod_affinity.emplace().required.push_back(t);
  }
  EXPECT_FALSE(plugin.Hint(bad, kNodeAddEvent, {.new_node = &zoned}).ok());
}

}  // namespace
}  // namespace trimaran::sched::plugins
