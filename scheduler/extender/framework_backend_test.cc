#include "scheduler/extender/framework_backend.h"

#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler_test_util.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::extender {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;
using ::trimaran::testing::StatusIs;

// Filters: NodeResourcesFit, TaintToleration; score: NodeResourcesFit LeastAllocated
// (cpu only, weight 2) — a profile whose scores are easy to compute by hand.
constexpr char kProfile[] = R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: extender
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: LeastAllocated
            resources:
              - {name: cpu, weight: 1}
    plugins:
      multiPoint:
        disabled:
          - name: "*"
      preFilter:
        enabled:
          - name: NodeResourcesFit
      filter:
        enabled:
          - name: NodeResourcesFit
          - name: TaintToleration
      preScore:
        enabled:
          - name: NodeResourcesFit
      score:
        enabled:
          - name: NodeResourcesFit
            weight: 2
)";

class FrameworkBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // free: 4 idle cores; half: 4 cores, 2 requested; small: 1 core (less than the pod
    // asks: unresolvable); busy: 4 cores, 3 requested (resolvable); tainted: 4 idle.
    handle_ = testing::NewHandleForTest(
        {MakeNode().Name("free").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj(),
         MakeNode().Name("half").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj(),
         MakeNode()
             .Name("small")
             .Capacity({{"cpu", "1"}, {"memory", "8Gi"}, {"pods", "110"}})
             .Obj(),
         MakeNode().Name("busy").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj(),
         MakeNode()
             .Name("tainted")
             .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
             .Taint("dedicated", "x", kube::TaintEffect::kNoSchedule)
             .Obj()},
        {MakePod().Namespace("ns").Name("existing").NodeName("half").Req({{"cpu", "2"}}).Obj(),
         MakePod().Namespace("ns").Name("big").NodeName("busy").Req({{"cpu", "3"}}).Obj()});
    TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<ProfileConfig> profiles,
                                  scheduler_testing::ProfilesFromYaml(kProfile));
    registry_ = plugins::InTreeRegistry();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(framework_, Framework::Create(profiles[0], registry_, *handle_));
    backend_ = std::make_unique<FrameworkBackend>(
        *framework_,
        [this]() -> absl::StatusOr<const NodeInfoLister*> {
          if (!snapshot_error_.ok()) return snapshot_error_;
          return &handle_->snapshot();
        },
        BindOptions{.client = &handle_->fake_client(),
                    .pods = [this](const std::string& ns,
                                   const std::string& name) -> std::shared_ptr<const kube::Pod> {
                      absl::StatusOr<kube::Pod> p = handle_->fake_client().GetPod(ns, name);
                      if (!p.ok()) return nullptr;
                      return std::make_shared<kube::Pod>(*std::move(p));
                    },
                    .scheduler_names = {"default-scheduler"}});
  }

  static std::vector<CandidateNode> Names(std::vector<std::string> names) {
    std::vector<CandidateNode> out;
    for (std::string& n : names) out.push_back({std::move(n), nullptr});
    return out;
  }

  std::unique_ptr<testing::FakeHandle> handle_;
  Registry registry_;
  std::unique_ptr<Framework> framework_;
  std::unique_ptr<FrameworkBackend> backend_;
  absl::Status snapshot_error_;
  kube::Pod pod_ = MakePod().Namespace("ns").Name("p").UID("u1").Req({{"cpu", "1500m"}}).Obj();
};

TEST_F(FrameworkBackendTest, FilterWithNamesRunsTheProfilesFilters) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      FilterVerdicts v,
      backend_->Filter(pod_, Names({"free", "half", "small", "busy", "tainted", "gone"})));
  EXPECT_THAT(v.feasible, ElementsAre("free", "half"));
  EXPECT_THAT(v.failed,
              UnorderedElementsAre(Pair("busy", "Insufficient cpu"),
                                   Pair("gone", HasSubstr("not in the extender's cache"))));
  EXPECT_THAT(v.failed_and_unresolvable,
              UnorderedElementsAre(Pair("small", "Insufficient cpu"),
                                   Pair("tainted", HasSubstr("untolerated taint"))));
}

TEST_F(FrameworkBackendTest, FilterWithObjectsUsesTheSentObjectForAnUnknownNode) {
  std::vector<CandidateNode> nodes = Names({"free"});
  nodes[0].object = std::make_shared<kube::Node>(MakeNode().Name("free").Obj());
  // Not in the cache: judged on the object kube-scheduler sent (no pods on it).
  nodes.push_back({"new-big", std::make_shared<kube::Node>(
                                  MakeNode()
                                      .Name("new-big")
                                      .Capacity({{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "110"}})
                                      .Obj())});
  nodes.push_back({"new-tiny", std::make_shared<kube::Node>(
                                   MakeNode()
                                       .Name("new-tiny")
                                       .Capacity({{"cpu", "1"}, {"memory", "8Gi"}, {"pods", "110"}})
                                       .Obj())});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(FilterVerdicts v, backend_->Filter(pod_, nodes));
  EXPECT_THAT(v.feasible, ElementsAre("free", "new-big"));
  EXPECT_THAT(v.failed, IsEmpty());
  EXPECT_THAT(v.failed_and_unresolvable,
              UnorderedElementsAre(Pair("new-tiny", "Insufficient cpu")));
}

TEST_F(FrameworkBackendTest, PrioritizeMapsTheWeightedTotalToZeroToTen) {
  // LeastAllocated cpu: free (1.5 of 4 requested) → (4-1.5)/4 = 62; half (3.5 of 4) → 12.
  // Weight 2: totals 124 and 24 of 200 → round(6.2) = 6 and round(1.2) = 1.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<HostPriority> list,
                                backend_->Prioritize(pod_, Names({"free", "half", "gone"})));
  EXPECT_THAT(
      list, ElementsAre(HostPriority{"free", 6}, HostPriority{"half", 1}, HostPriority{"gone", 0}));
}

TEST_F(FrameworkBackendTest, SnapshotErrorsFailTheRequest) {
  snapshot_error_ = absl::InternalError("cache broke");
  EXPECT_THAT(backend_->Filter(pod_, Names({"free"})).status(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("cache broke")));
  EXPECT_THAT(backend_->Prioritize(pod_, Names({"free"})).status(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("cache broke")));
}

TEST_F(FrameworkBackendTest, BindPostsTheBinding) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod created, handle_->fake_client().CreatePod(pod_));
  TRIMARAN_ASSERT_OK(backend_->Bind({"p", "ns", created.metadata.uid, "free"}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod bound, handle_->fake_client().GetPod("ns", "p"));
  EXPECT_EQ(bound.spec.node_name, "free");
  // Bound now: a second request (a replay) is refused.
  EXPECT_THAT(backend_->Bind({"p", "ns", created.metadata.uid, "half"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already bound")));

  FrameworkBackend no_bind(*framework_,
                           [] { return absl::StatusOr<const NodeInfoLister*>(nullptr); });
  EXPECT_THAT(no_bind.Bind({"p", "ns", "u1", "free"}), StatusIs(absl::StatusCode::kUnimplemented));
}

TEST_F(FrameworkBackendTest, BindRefusesNamesThatAreNotObjectNames) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod created, handle_->fake_client().CreatePod(pod_));
  const std::string uid = created.metadata.uid;
  for (const ExtenderBindingArgs& args : std::vector<ExtenderBindingArgs>{
           {"p/../../../nodes/free", "ns", uid, "free"},
           {"p", "ns/pods/x", uid, "free"},
           {"p", "ns", uid, "free/status"},
           {"p%2Fx", "ns", uid, "free"},
           {"p", "ns", uid, "free?dryRun=All"},
           {"p", "ns", "", "free"},
       }) {
    SCOPED_TRACE(args.pod_namespace + " " + args.pod_name + " " + args.node);
    EXPECT_THAT(backend_->Bind(args), StatusIs(absl::StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(handle_->fake_client().GetPod("ns", "p")->spec.node_name, "");
}

TEST_F(FrameworkBackendTest, BindOnlyPendingPodsOfTheSchedulerNamesToNodesThatFit) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod created, handle_->fake_client().CreatePod(pod_));
  const std::string uid = created.metadata.uid;
  // Unknown pod, another UID.
  EXPECT_THAT(backend_->Bind({"nope", "ns", uid, "free"}), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(backend_->Bind({"p", "ns", "other-uid", "free"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("another UID")));
  // Nodes that do not pass the profile's filters (busy: Insufficient cpu; tainted;
  // gone: not in the cache).
  EXPECT_THAT(backend_->Bind({"p", "ns", uid, "busy"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("Insufficient cpu")));
  EXPECT_THAT(backend_->Bind({"p", "ns", uid, "tainted"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("untolerated taint")));
  EXPECT_THAT(backend_->Bind({"p", "ns", uid, "gone"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not in the extender")));
  // A pod of another scheduler (Trimaran's own, say).
  kube::Pod other = MakePod().Namespace("ns").Name("q").Req({{"cpu", "100m"}}).Obj();
  other.spec.scheduler_name = "trimaran";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod q, handle_->fake_client().CreatePod(other));
  EXPECT_THAT(backend_->Bind({"q", "ns", q.metadata.uid, "free"}),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("schedulerName")));
  // A bound pod.
  EXPECT_THAT(backend_->Bind({"existing", "ns", "", "free"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Nothing was bound.
  EXPECT_EQ(handle_->fake_client().GetPod("ns", "p")->spec.node_name, "");
  EXPECT_EQ(handle_->fake_client().GetPod("ns", "q")->spec.node_name, "");
  TRIMARAN_EXPECT_OK(backend_->Bind({"p", "ns", uid, "half"}));
}

}  // namespace
}  // namespace trimaran::sched::extender
