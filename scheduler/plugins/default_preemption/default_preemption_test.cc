#include "scheduler/plugins/default_preemption/default_preemption.h"

#include <map>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/backend/cache/object_store.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Spec §9.5 units: node capacity 5 units; 1 unit = 100m CPU / 200 MB memory.
constexpr int32_t kNeg = -100, kLow = 0, kMid = 100, kHigh = 1000, kVeryHigh = 10000;
enum Size { kSmall = 1, kMedium = 2, kLarge = 3, kVeryLarge = 5 };

kube::Node Machine(const std::string& name) {
  return MakeNode()
      .Name(name)
      .Capacity({{"cpu", "500m"}, {"memory", "1000M"}, {"pods", "100"}})
      .Obj();
}

kube::Pod Sized(const std::string& name, Size size, int32_t priority,
                const std::string& node = "") {
  auto w =
      MakePod()
          .Name(name)
          .Namespace("ns")
          .UID("uid-" + name)
          .Priority(priority)
          .Req({{"cpu", absl::StrCat(100 * size, "m")}, {"memory", absl::StrCat(200 * size, "M")}});
  if (!node.empty()) w.NodeName(node);
  return w.Obj();
}

// A PodNominator over a plain map (the queue's is tested with the queue).
class TestNominator final : public PodNominator {
 public:
  void AddNominatedPod(std::shared_ptr<const kube::Pod> pod, absl::string_view node) override {
    absl::MutexLock lock(&mu_);
    const std::string name = pod->metadata.name;
    pods_[name] = {std::string(node.empty() ? pod->status.nominated_node_name : node),
                   PodInfo::Create(std::move(pod))};
  }
  void DeleteNominatedPodIfExists(const kube::Pod& pod) override {
    absl::MutexLock lock(&mu_);
    pods_.erase(pod.metadata.name);
  }
  std::vector<PodInfo> NominatedPodsForNode(absl::string_view node) const override {
    absl::MutexLock lock(&mu_);
    std::vector<PodInfo> out;
    for (const auto& [name, entry] : pods_) {
      if (entry.first == node) out.push_back(entry.second);
    }
    return out;
  }
  bool HasNominatedPods() const override {
    absl::MutexLock lock(&mu_);
    return !pods_.empty();
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::pair<std::string, PodInfo>> pods_ ABSL_GUARDED_BY(mu_);
};

class DefaultPreemptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    replacement_.reset();
    wrapped_.reset();
    fw_.reset();
    plugin_ = nullptr;
    handle_ = testing::NewHandleForTest();
    handle_->SetNominator(&nominator_);
  }

  // The cluster, in the snapshot and in the fake apiserver; a profile of
  // TaintToleration + NodeResourcesFit with DefaultPreemption as PostFilter.
  void Build(const std::vector<kube::Node>& nodes, const std::vector<kube::Pod>& pods,
             const std::string& args = "", bool fixed_offset = true,
             bool with_inter_pod_affinity = false) {
    handle_->snapshot().Set(nodes, pods);
    for (const kube::Pod& p : pods) ASSERT_TRUE(handle_->fake_client().CreatePod(p).ok());
    ProfileConfig config;
    config.pre_filter = {"NodeResourcesFit"};
    config.filter = {"TaintToleration", "NodeResourcesFit"};
    if (with_inter_pod_affinity) {
      config.pre_filter.push_back("InterPodAffinity");
      config.filter.push_back("InterPodAffinity");
    }
    config.post_filter = {"DefaultPreemption"};
    if (!args.empty()) config.plugin_args["DefaultPreemption"] = PluginArgs{YAML::Load(args), ""};
    absl::StatusOr<std::unique_ptr<Framework>> fw = Framework::Create(config, registry_, *handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = *std::move(fw);
    plugin_ = dynamic_cast<DefaultPreemption*>(fw_->GetPlugin("DefaultPreemption"));
    ASSERT_NE(plugin_, nullptr);
    if (fixed_offset) plugin_->SetOffsetForTest([](int32_t) { return 0; });
  }

  void SetBudgets(std::vector<DisruptionBudget> budgets) {
    // Same plugin, fixed budgets.
    ASSERT_NE(plugin_, nullptr);
    budgets_ = std::move(budgets);
    replacement_ = std::make_unique<DefaultPreemption>(DefaultPreemptionArgs{}, plugin_handle(),
                                                       [this] { return budgets_; });
    replacement_->SetOffsetForTest([](int32_t) { return 0; });
    plugin_ = replacement_.get();
  }

  // The Handle the runtime gave the plugin (it carries the PluginsRunner).
  Handle& plugin_handle() { return *plugin_handle_ptr(); }
  Handle* plugin_handle_ptr() {
    // The runtime's plugin handle forwards to handle_ and adds the runner; rebuild one.
    struct Wrapped final : Handle {
      Wrapped(Handle& b, const PluginsRunner& r) : base(b), runner(r) {}
      const SharedLister& snapshot_lister() const override { return base.snapshot_lister(); }
      kube::Client& client() override { return base.client(); }
      EventRecorder& event_recorder() override { return base.event_recorder(); }
      const StatsScopes& stats_scopes() const override { return base.stats_scopes(); }
      Parallelizer& parallelizer() override { return base.parallelizer(); }
      const Clock& clock() const override { return base.clock(); }
      PodNominator* nominator() const override { return base.nominator(); }
      const PluginsRunner* plugins_runner() const override { return &runner; }
      kube::CallOptions binding_call_options() override { return base.binding_call_options(); }
      void IterateOverWaitingPods(absl::FunctionRef<void(WaitingPodHandle&)> fn) override {
        base.IterateOverWaitingPods(fn);
      }
      Handle& base;
      const PluginsRunner& runner;
    };
    if (wrapped_ == nullptr) wrapped_ = std::make_unique<Wrapped>(*handle_, *fw_);
    return wrapped_.get();
  }

  // PreFilter, then Filter (with nominated pods) on every node, as the scheduling cycle.
  NodeToStatus Filter(CycleState& state, const kube::Pod& pod) {
    NodeToStatus statuses;
    Framework::PreFilterOutput out;
    const auto nodes = handle_->snapshot_lister().NodeInfos().List();
    const Status pre = fw_->RunPreFilterPlugins(state, pod, nodes, out);
    EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
    for (const NodeInfo* n : nodes) {
      Status s = fw_->RunFilterPluginsWithNominatedPods(state, pod, *n);
      EXPECT_FALSE(s.IsSuccess()) << "preemption tests need a pod that fits nowhere: " << n->name();
      statuses.Set(n->name(), std::move(s));
    }
    return statuses;
  }

  DefaultPreemption::Plan DryRun(const kube::Pod& pod) {
    CycleState state;
    const NodeToStatus statuses = Filter(state, pod);
    return plugin_->DryRun(state, pod, statuses);
  }

  Status PostFilter(const kube::Pod& pod, PostFilterResult& result) {
    CycleState state;
    const NodeToStatus statuses = Filter(state, pod);
    return plugin_->PostFilter(state, pod, statuses, result);
  }

  static std::vector<std::string> VictimNames(const Candidate& c) {
    std::vector<std::string> out;
    for (const auto& p : c.victims.pods) out.push_back(p->metadata.name);
    return out;
  }

  const Registry registry_ = InTreeRegistry();
  TestNominator nominator_;
  std::unique_ptr<testing::FakeHandle> handle_;
  std::unique_ptr<Framework> fw_;
  DefaultPreemption* plugin_ = nullptr;
  std::vector<DisruptionBudget> budgets_;
  std::unique_ptr<DefaultPreemption> replacement_;
  std::unique_ptr<Handle> wrapped_;
};

// ---- TestPickOneNodeForPreemption rows (spec §9.5), through the dry run ----

struct PickRow {
  std::string name;
  int32_t preemptor_priority;
  std::vector<kube::Pod> pods;
  std::vector<std::string> nodes;
  std::string want_node;
  std::vector<std::string> want_victims;
};

TEST_F(DefaultPreemptionTest, PickOneNodeForPreemptionRows) {
  const std::vector<PickRow> rows = {
      {"E1 top victim low",
       kHigh,
       {Sized("m1.1", kMedium, kMid, "m1"), Sized("m1.2", kLarge, kMid, "m1"),
        Sized("m2.1", kMedium, kMid, "m2"), Sized("m2.2", kMedium, kLow, "m2"),
        Sized("m3.1", kMedium, kLow, "m3"), Sized("m3.2", kMedium, kLow, "m3")},
       {"m1", "m2", "m3"},
       "m3",
       {"m3.1", "m3.2"}},
      {"E2 smallest sum",
       kHigh,
       {Sized("m1.1", kMedium, kMid, "m1"), Sized("m1.2", kLarge, kMid, "m1"),
        Sized("m2.1", kLarge, kMid, "m2"), Sized("m2.2", kMedium, kLow, "m2"),
        Sized("m3.1", kMedium, kMid, "m3"), Sized("m3.2", kMedium, kMid, "m3")},
       {"m1", "m2", "m3"},
       "m2",
       {"m2.1", "m2.2"}},
      {"E3 shifted sum",
       kHigh,
       {Sized("m1.1", kSmall, kMid, "m1"), Sized("m1.2", kSmall, kNeg, "m1"),
        Sized("m1.3", kSmall, kMid, "m1"), Sized("m1.4", kSmall, kNeg, "m1"),
        Sized("m2.1", kLarge, kMid, "m2"), Sized("m2.2", kMedium, kNeg, "m2"),
        Sized("m3.1", kMedium, kMid, "m3"), Sized("m3.2", kSmall, kNeg, "m3"),
        Sized("m3.3", kSmall, kLow, "m3")},
       {"m1", "m2", "m3"},
       "m2",
       {"m2.1", "m2.2"}},
      {"E4 high victim loses, then smallest sum",
       kVeryHigh,
       {Sized("m1.1", kSmall, kMid, "m1"), Sized("m1.2", kSmall, kLow, "m1"),
        Sized("m1.3", kSmall, kLow, "m1"), Sized("m2.1", kLarge, kHigh, "m2"),
        Sized("m3.1", kMedium, kMid, "m3"), Sized("m3.2", kSmall, kLow, "m3"),
        Sized("m3.3", kSmall, kLow, "m3"), Sized("m3.4", kMedium, kLow, "m3"),
        Sized("m4.1", kMedium, kMid, "m4"), Sized("m4.2", kSmall, kMid, "m4"),
        Sized("m4.3", kSmall, kMid, "m4"), Sized("m4.4", kSmall, kNeg, "m4")},
       {"m1", "m2", "m3", "m4"},
       "m1",
       {"m1.1", "m1.2", "m1.3"}},
  };
  for (const PickRow& row : rows) {
    SCOPED_TRACE(row.name);
    SetUp();
    std::vector<kube::Node> nodes;
    for (const std::string& n : row.nodes) nodes.push_back(Machine(n));
    Build(nodes, row.pods);
    const DefaultPreemption::Plan plan =
        DryRun(Sized("preemptor", kVeryLarge, row.preemptor_priority));
    ASSERT_TRUE(plan.status.IsSuccess()) << plan.status.Message();
    ASSERT_TRUE(plan.chosen.has_value());
    EXPECT_EQ(plan.chosen->node_name, row.want_node);
    EXPECT_THAT(VictimNames(*plan.chosen), ::testing::UnorderedElementsAreArray(row.want_victims));
    // A veryLarge preemptor empties a whole node: every node is a candidate.
    EXPECT_EQ(plan.candidates.size(), row.nodes.size());
  }
}

// ---- TestSelectNodesForPreemption-style rows ----

// The minimal set: the least important pods go, the rest are reprieved.
TEST_F(DefaultPreemptionTest, MinimalVictimsLeastImportantFirst) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  std::vector<kube::Pod> pods;
  for (int i = 0; i < 5; ++i) {
    kube::Pod p = Sized(absl::StrCat("p", i), kSmall, kLow, "m1");
    p.status.start_time = t0 + absl::Minutes(i);
    pods.push_back(p);
  }
  // One more important pod (higher priority, started last) is never a victim first.
  pods[4].spec.priority = kMid;
  Build({Machine("m1")}, pods);
  const DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kMedium, kHigh));
  ASSERT_TRUE(plan.chosen.has_value()) << plan.status.Message();
  // Importance: p4 (mid), then p0..p3 by start time: p2 and p3 cannot be given back.
  EXPECT_THAT(VictimNames(*plan.chosen), ElementsAre("p2", "p3"));
  EXPECT_EQ(plan.chosen->victims.num_pdb_violations, 0);
}

TEST_F(DefaultPreemptionTest, NoLowerPriorityPodsMeansNoVictims) {
  Build({Machine("m1"), Machine("m2")},
        {Sized("a", kVeryLarge, kHigh, "m1"), Sized("b", kVeryLarge, kHigh, "m2")});
  const DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kSmall, kHigh));
  EXPECT_FALSE(plan.chosen.has_value());
  EXPECT_EQ(plan.status.code(), Code::kUnschedulable);
  EXPECT_EQ(plan.status.Message(),
            "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming "
            "pod.");
}

// Nodes rejected as UnschedulableAndUnresolvable (an untolerated NoSchedule taint) are
// not candidates, whatever runs on them.
TEST_F(DefaultPreemptionTest, UnresolvableNodesAreSkipped) {
  kube::Node tainted = Machine("m1");
  tainted = MakeNode()
                .Name("m1")
                .Capacity({{"cpu", "500m"}, {"memory", "1000M"}, {"pods", "100"}})
                .Taint("dedicated", "x", kube::TaintEffect::kNoSchedule)
                .Obj();
  Build({tainted, Machine("m2")},
        {Sized("a", kVeryLarge, kLow, "m1"), Sized("b", kLarge, kLow, "m2"),
         Sized("c", kMedium, kHigh, "m2")});
  DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kLarge, kMid));
  ASSERT_TRUE(plan.chosen.has_value()) << plan.status.Message();
  EXPECT_EQ(plan.chosen->node_name, "m2");
  EXPECT_THAT(VictimNames(*plan.chosen), ElementsAre("b"));

  SetUp();
  Build({tainted}, {Sized("a", kVeryLarge, kLow, "m1")});
  plan = DryRun(Sized("preemptor", kLarge, kMid));
  EXPECT_EQ(plan.status.Message(),
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
}

// A pod that does not fit even on an emptied node is not helped.
TEST_F(DefaultPreemptionTest, NodeTooSmallEvenWhenEmptied) {
  Build({Machine("m1")}, {Sized("a", kMedium, kHigh, "m1"), Sized("b", kLarge, kLow, "m1"),
                          Sized("c", kMedium, kHigh, "m1")});
  const DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kLarge, kMid));
  EXPECT_FALSE(plan.chosen.has_value());
  EXPECT_THAT(plan.status.Message(), ::testing::StartsWith("preemption: 0/1 nodes are available: "
                                                           "1 Insufficient cpu"));
}

// The dry run keeps PreFilter state in step through the PreFilter extensions: removing
// the lower-priority pod that the preemptor's required anti-affinity rejects makes the
// node fit (InterPodAffinity's RemovePod), a higher-priority one cannot be removed.
TEST_F(DefaultPreemptionTest, DryRunFollowsPreFilterExtensions) {
  auto host = [](const std::string& name) {
    return MakeNode()
        .Name(name)
        .Label("kubernetes.io/hostname", name)
        .Capacity({{"cpu", "500m"}, {"memory", "1000M"}, {"pods", "100"}})
        .Obj();
  };
  kube::Pod low_db = Sized("low-db", kSmall, kLow, "m1");
  low_db.metadata.labels["app"] = "db";
  kube::Pod high_db = Sized("high-db", kSmall, kHigh, "m2");
  high_db.metadata.labels["app"] = "db";
  Build({host("m1"), host("m2")}, {low_db, high_db}, "", true, /*with_inter_pod_affinity=*/true);
  kube::Pod pod = Sized("preemptor", kSmall, kMid);
  kube::PodAffinityTerm term;
  term.label_selector = kube::testing::MakeLabelSelector().Label("app", "db").Obj();
  term.topology_key = "kubernetes.io/hostname";
  pod.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(term);
  const DefaultPreemption::Plan plan = DryRun(pod);
  ASSERT_TRUE(plan.chosen.has_value()) << plan.status.Message();
  EXPECT_EQ(plan.chosen->node_name, "m1");
  EXPECT_THAT(VictimNames(*plan.chosen), ElementsAre("low-db"));
  EXPECT_EQ(plan.candidates.size(), 1u);
}

// ---- PodDisruptionBudgets ----// ---- PodDisruptionBudgets ----

DisruptionBudget WebBudget(int32_t allowed) {
  DisruptionBudget b;
  b.namespace_name = "ns";
  b.name = "web";
  kube::LabelSelector sel;
  sel.match_labels["app"] = "web";
  b.selector = *helper::Selector::Compile(sel);
  b.disruptions_allowed = allowed;
  return b;
}

kube::Pod Web(kube::Pod p) {
  p.metadata.labels["app"] = "web";
  return p;
}

// Criterion 1: a node whose victims would violate a budget loses to one without, even
// with higher-priority victims there.
TEST_F(DefaultPreemptionTest, PdbViolatingNodeLoses) {
  Build({Machine("m1"), Machine("m2")},
        {Web(Sized("w", kVeryLarge, kLow, "m1")), Sized("x", kVeryLarge, kMid, "m2")});
  SetBudgets({WebBudget(0)});
  const DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kVeryLarge, kHigh));
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_EQ(plan.chosen->node_name, "m2");
  ASSERT_EQ(plan.candidates.size(), 2u);
  // Non-violating candidates come first.
  EXPECT_EQ(plan.candidates[0].node_name, "m2");
  EXPECT_EQ(plan.candidates[1].victims.num_pdb_violations, 1);
}

// Within a node, protected pods are reprieved first: victims come from unprotected pods.
TEST_F(DefaultPreemptionTest, PdbProtectedPodsReprievedFirst) {
  Build({Machine("m1")},
        {Web(Sized("w1", kSmall, kLow, "m1")), Web(Sized("w2", kSmall, kLow, "m1")),
         Web(Sized("w3", kSmall, kLow, "m1")), Sized("u1", kSmall, kLow, "m1"),
         Sized("u2", kSmall, kLow, "m1")});
  SetBudgets({WebBudget(0)});
  DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kMedium, kHigh));
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_THAT(VictimNames(*plan.chosen), UnorderedElementsAre("u1", "u2"));
  EXPECT_EQ(plan.chosen->victims.num_pdb_violations, 0);

  // When protected pods must go, they count as violations.
  plan = DryRun(Sized("preemptor", kVeryLarge, kHigh));
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_EQ(plan.chosen->victims.pods.size(), 5u);
  EXPECT_EQ(plan.chosen->victims.num_pdb_violations, 3);

  // One disruption allowed: one protected pod may go without a violation.
  SetBudgets({WebBudget(1)});
  plan = DryRun(Sized("preemptor", kVeryLarge, kHigh));
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_EQ(plan.chosen->victims.num_pdb_violations, 2);
}

// Budgets reach the plugin from the ObjectLister (the daemon's informer), both versions,
// every namespace.
TEST(ListDisruptionBudgetsTest, ReadsBothVersionsInEveryNamespace) {
  ObjectStore store;
  auto object = [](const std::string& ns, const std::string& name) {
    auto o = std::make_shared<kube::SelectorObject>();
    o->metadata.namespace_name = ns;
    o->metadata.name = name;
    return o;
  };
  store.Apply(kube::SelectorResource::kNamespaces, object("", "a"));
  store.Apply(kube::SelectorResource::kNamespaces, object("", "b"));
  auto v1 = object("a", "web");
  v1->selector = kube::LabelSelector{.match_labels = {{"app", "web"}}};
  v1->disruptions_allowed = 2;
  v1->disrupted_pods = {"web-1"};
  store.Apply(kube::SelectorResource::kPodDisruptionBudgets, v1);
  store.Apply(kube::SelectorResource::kPodDisruptionBudgetsV1beta1, object("b", "db"));
  const std::vector<DisruptionBudget> got = ListDisruptionBudgets(store);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].namespace_name, "a");
  EXPECT_EQ(got[0].disruptions_allowed, 2);
  EXPECT_TRUE(got[0].disrupted_pods.contains("web-1"));
  EXPECT_TRUE(got[0].selector.Matches({{"app", "web"}}));
  EXPECT_EQ(got[1].name, "db");
  // No selector: protects nothing.
  EXPECT_TRUE(got[1].selector.MatchesNothing());
}

// ---- Eligibility ----// ---- Eligibility ----

TEST_F(DefaultPreemptionTest, PreemptionPolicyNeverPreemptsNoOne) {
  Build({Machine("m1")}, {Sized("a", kVeryLarge, kLow, "m1")});
  kube::Pod pod = Sized("preemptor", kSmall, kHigh);
  pod.spec.preemption_policy = kube::PreemptionPolicy::kNever;
  PostFilterResult result;
  const Status s = PostFilter(pod, result);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(result.nominated_node_name, "");
  EXPECT_EQ(handle_->fake_client().Calls("DeletePod"), 0);
  EXPECT_TRUE(handle_->fake_client().GetPod("ns", "a").ok());
}

TEST_F(DefaultPreemptionTest, TerminatingVictimOnNominatedNodeBlocksAnotherPreemption) {
  kube::Pod victim = Sized("a", kVeryLarge, kLow, "m1");
  victim.metadata.deletion_timestamp = absl::FromUnixSeconds(1);
  kube::PodCondition c;
  c.type = "DisruptionTarget";
  c.status = kube::ConditionStatus::kTrue;
  c.reason = "PreemptionByScheduler";
  victim.status.conditions.push_back(c);
  Build({Machine("m1"), Machine("m2")}, {victim, Sized("b", kVeryLarge, kLow, "m2")});
  kube::Pod pod = Sized("preemptor", kSmall, kHigh);
  pod.status.nominated_node_name = "m1";
  std::string message;
  CycleState state;
  const NodeToStatus statuses = Filter(state, pod);
  EXPECT_FALSE(plugin_->PodEligibleToPreemptOthers(pod, statuses, message));
  EXPECT_EQ(message, "not eligible due to a terminating pod on the nominated node.");

  // Not nominated there: eligible.
  pod.status.nominated_node_name = "m2";
  EXPECT_TRUE(plugin_->PodEligibleToPreemptOthers(pod, statuses, message));
  // Terminating for another reason (no DisruptionTarget): eligible (1.27+).
  SetUp();
  victim.status.conditions.clear();
  Build({Machine("m1")}, {victim});
  pod.status.nominated_node_name = "m1";
  CycleState state2;
  EXPECT_TRUE(plugin_->PodEligibleToPreemptOthers(pod, Filter(state2, pod), message));
}

// ---- The API side ----

TEST_F(DefaultPreemptionTest, PostFilterEvictsVictimsAndClearsLowerNominations) {
  Build({Machine("m1"), Machine("m2")},
        {Sized("a", kMedium, kMid, "m1"), Sized("b", kLarge, kMid, "m1"),
         Sized("c", kMedium, kLow, "m2"), Sized("d", kMedium, kLow, "m2"),
         Sized("keep", kSmall, kHigh, "m2")});
  // A lower-priority pod nominated to m2 earlier, and a higher-priority one.
  kube::Pod lower = Sized("lower", kSmall, kLow);
  lower.status.nominated_node_name = "m2";
  ASSERT_TRUE(handle_->fake_client().CreatePod(lower).ok());
  nominator_.AddNominatedPod(std::make_shared<const kube::Pod>(lower), "m2");

  kube::Pod preemptor = Sized("preemptor", kLarge, kHigh);
  preemptor.spec.scheduler_name = "trimaran";
  PostFilterResult result;
  const Status s = PostFilter(preemptor, result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "m2");
  // Victims deleted; the rest untouched.
  EXPECT_FALSE(handle_->fake_client().GetPod("ns", "c").ok());
  EXPECT_FALSE(handle_->fake_client().GetPod("ns", "d").ok());
  EXPECT_TRUE(handle_->fake_client().GetPod("ns", "keep").ok());
  EXPECT_TRUE(handle_->fake_client().GetPod("ns", "a").ok());
  // Each victim got DisruptionTarget before its deletion; the lower nomination cleared.
  std::set<std::string> disruption_targets;
  bool cleared = false;
  for (const auto& [key, patch] : handle_->fake_client().StatusPatches()) {
    for (const kube::PodCondition& c : patch.conditions) {
      if (c.type == "DisruptionTarget") {
        EXPECT_EQ(c.reason, "PreemptionByScheduler");
        EXPECT_EQ(c.message, "trimaran: preempting to accommodate a higher priority pod");
        disruption_targets.insert(key);
      }
    }
    if (patch.nominated_node_name == std::optional<std::string>("")) {
      EXPECT_EQ(key, "ns/lower");
      cleared = true;
    }
  }
  EXPECT_THAT(disruption_targets,
              UnorderedElementsAre(::testing::HasSubstr("c"), ::testing::HasSubstr("d")));
  EXPECT_TRUE(cleared);
  EXPECT_TRUE(nominator_.NominatedPodsForNode("m2").empty());
  // One Preempted event per victim, about the victim, related to the preemptor.
  std::vector<std::string> preempted;
  for (const testing::RecordedEvent& e : handle_->recorder().Events()) {
    if (e.reason != "Preempted") continue;
    EXPECT_EQ(e.type, EventType::kNormal);
    EXPECT_EQ(e.action, "Preempting");
    EXPECT_EQ(e.related, "ns/preemptor");
    EXPECT_EQ(e.note, "Preempted by pod uid-preemptor on node m2");
    preempted.push_back(e.regarding);
  }
  EXPECT_THAT(preempted, UnorderedElementsAre("ns/c", "ns/d"));
}

TEST_F(DefaultPreemptionTest, ApiFailureAborts) {
  Build({Machine("m1")}, {Sized("a", kVeryLarge, kLow, "m1")});
  handle_->fake_client().FailNext("DeletePod", absl::UnavailableError("down"));
  PostFilterResult result;
  const Status s = PostFilter(Sized("preemptor", kSmall, kHigh), result);
  EXPECT_TRUE(s.IsError());
  EXPECT_EQ(result.nominated_node_name, "");
}

// ---- The leadership fence: evictions act as the leader, like Bind ----

// Nothing is evicted once the lease is lost (the fence's stop) or past LeadingUntil()
// (its deadline): no DisruptionTarget, no DELETE, no Preempted event; an error instead.
TEST_F(DefaultPreemptionTest, NothingIsEvictedBehindAClosedFence) {
  for (const bool lost : {true, false}) {
    SCOPED_TRACE(lost ? "lease lost" : "past LeadingUntil");
    SetUp();
    Build({Machine("m1")}, {Sized("a", kVeryLarge, kLow, "m1")});
    std::stop_source loss;
    kube::CallOptions fence;
    if (lost) {
      loss.request_stop();
      fence.stop = loss.get_token();
    } else {
      fence.deadline = handle_->clock().Now();
    }
    handle_->SetBindingCallOptions(fence);
    PostFilterResult result;
    const Status s = PostFilter(Sized("preemptor", kSmall, kHigh), result);
    EXPECT_TRUE(s.IsError()) << s.Message();
    EXPECT_THAT(s.Message(), ::testing::HasSubstr("not evicting ns/a"));
    EXPECT_EQ(result.nominated_node_name, "");
    EXPECT_TRUE(handle_->fake_client().GetPod("ns", "a").ok());
    EXPECT_TRUE(handle_->fake_client().StatusPatches().empty());
    EXPECT_EQ(handle_->fake_client().Calls("DeletePod"), 0);
    EXPECT_TRUE(handle_->recorder().Events().empty());
  }
}

// The victims' calls carry the fence itself: a loss while one is in flight ends it.
TEST_F(DefaultPreemptionTest, EvictionCallsCarryTheFence) {
  Build({Machine("m1")}, {Sized("a", kVeryLarge, kLow, "m1")});
  std::stop_source loss;
  handle_->SetBindingCallOptions({.stop = loss.get_token()});
  handle_->fake_client().Hang("PatchPodStatus", true);
  std::thread lose([&] {
    while (handle_->fake_client().Calls("PatchPodStatus") == 0)
      absl::SleepFor(absl::Milliseconds(1));
    loss.request_stop();
  });
  PostFilterResult result;
  const Status s = PostFilter(Sized("preemptor", kSmall, kHigh), result);
  lose.join();
  EXPECT_TRUE(s.IsError()) << s.Message();
  EXPECT_THAT(s.Message(), ::testing::HasSubstr("patch victim ns/a"));
  EXPECT_TRUE(handle_->fake_client().GetPod("ns", "a").ok());
  EXPECT_EQ(handle_->fake_client().Calls("DeletePod"), 0);
}

// Upstream's order: a victim held at Permit is rejected (its binding cycle unreserves
// it), never deleted; the other victims are evicted; every victim gets its event.
TEST_F(DefaultPreemptionTest, VictimWaitingAtPermitIsRejectedNeverDeleted) {
  Build({Machine("m1")}, {Sized("held", kMedium, kLow, "m1"), Sized("bound", kMedium, kLow, "m1")});
  kube::Pod held = Sized("held", kMedium, kLow, "m1");
  auto waiting = std::make_shared<WaitingPod>(
      std::make_shared<const kube::Pod>(held), "m1",
      std::vector<WaitingPod::PendingPlugin>{{"Coscheduling", absl::Seconds(30)}},
      handle_->clock());
  fw_->waiting_pods().Add(waiting);  // the profile's, which the plugin's Handle iterates
  PostFilterResult result;
  const Status s = PostFilter(Sized("preemptor", kVeryLarge, kHigh), result);
  ASSERT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(result.nominated_node_name, "m1");
  // Rejected at Permit, still in the apiserver, no DisruptionTarget written.
  ASSERT_TRUE(waiting->Result().has_value());
  EXPECT_EQ(waiting->Result()->code(), Code::kUnschedulable);
  EXPECT_THAT(waiting->Result()->Message(), ::testing::HasSubstr("preempted"));
  EXPECT_TRUE(handle_->fake_client().GetPod("ns", "held").ok());
  for (const auto& [key, patch] : handle_->fake_client().StatusPatches()) {
    EXPECT_NE(key, "ns/held");
  }
  // The bound victim is evicted as usual.
  EXPECT_FALSE(handle_->fake_client().GetPod("ns", "bound").ok());
  std::vector<std::string> preempted;
  for (const testing::RecordedEvent& e : handle_->recorder().Events()) {
    if (e.reason == "Preempted") preempted.push_back(e.regarding);
  }
  EXPECT_THAT(preempted, UnorderedElementsAre("ns/held", "ns/bound"));
}

TEST_F(DefaultPreemptionTest, NoRoomClearsThePreemptorsNomination) {
  Build({Machine("m1")}, {Sized("a", kVeryLarge, kHigh, "m1")});
  kube::Pod pod = Sized("preemptor", kSmall, kHigh);
  pod.status.nominated_node_name = "m1";
  ASSERT_TRUE(handle_->fake_client().CreatePod(pod).ok());
  PostFilterResult result;
  EXPECT_EQ(PostFilter(pod, result).code(), Code::kUnschedulable);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod got, handle_->fake_client().GetPod("ns", "preemptor"));
  EXPECT_EQ(got.status.nominated_node_name, "");
}

// ---- Candidate sampling ----

// minCandidateNodesAbsolute 1: the dry run stops at the first candidate after the random
// offset, so different attempts pick different (equivalent) nodes.
TEST_F(DefaultPreemptionTest, RandomStartOffsetSpreadsCandidates) {
  std::vector<kube::Node> nodes;
  std::vector<kube::Pod> pods;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(Machine(absl::StrCat("n", i)));
    pods.push_back(Sized(absl::StrCat("p", i), kVeryLarge, kLow, absl::StrCat("n", i)));
  }
  Build(nodes, pods, "minCandidateNodesPercentage: 0\nminCandidateNodesAbsolute: 1",
        /*fixed_offset=*/false);
  std::set<std::string> chosen;
  for (int i = 0; i < 40; ++i) {
    const DefaultPreemption::Plan plan = DryRun(Sized("preemptor", kSmall, kHigh));
    ASSERT_TRUE(plan.chosen.has_value());
    EXPECT_EQ(plan.candidates.size(), 1u);
    chosen.insert(plan.chosen->node_name);
  }
  EXPECT_GE(chosen.size(), 4u);
}

TEST_F(DefaultPreemptionTest, CandidateCountFollowsArgs) {
  std::vector<kube::Node> nodes;
  std::vector<kube::Pod> pods;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(Machine(absl::StrCat("n", i)));
    pods.push_back(Sized(absl::StrCat("p", i), kVeryLarge, kLow, absl::StrCat("n", i)));
  }
  Build(nodes, pods, "minCandidateNodesPercentage: 40\nminCandidateNodesAbsolute: 0");
  EXPECT_EQ(DryRun(Sized("preemptor", kSmall, kHigh)).candidates.size(), 4u);
}

// ---- Filter with nominated pods (spec §1.3), as the dry run and the cycle run it ----

TEST_F(DefaultPreemptionTest, NominatedPodsOfHigherOrEqualPriorityTakeTheirRoom) {
  Build({Machine("m1")}, {Sized("a", kLarge, kLow, "m1")});
  kube::Pod nominated = Sized("nominated", kMedium, kMid);
  nominator_.AddNominatedPod(std::make_shared<const kube::Pod>(nominated), "m1");
  const NodeInfo& m1 = **handle_->snapshot_lister().NodeInfos().Get("m1");
  auto filter = [&](const kube::Pod& pod) {
    CycleState state;
    Framework::PreFilterOutput out;
    EXPECT_TRUE(
        fw_->RunPreFilterPlugins(state, pod, handle_->snapshot_lister().NodeInfos().List(), out)
            .IsSuccess());
    return fw_->RunFilterPluginsWithNominatedPods(state, pod, m1);
  };
  // Equal or higher priority nominated pods count: 3 + 2 used, a small pod no longer fits.
  EXPECT_EQ(filter(Sized("x", kSmall, kMid)).code(), Code::kUnschedulable);
  EXPECT_EQ(filter(Sized("x", kSmall, kLow)).code(), Code::kUnschedulable);
  // Lower-priority nominations do not.
  EXPECT_TRUE(filter(Sized("x", kSmall, kHigh)).IsSuccess());
  // The nominated pod itself is not counted twice.
  EXPECT_TRUE(filter(nominated).IsSuccess());
}

}  // namespace
}  // namespace trimaran::sched::plugins
