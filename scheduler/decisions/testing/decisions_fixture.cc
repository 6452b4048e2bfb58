#include "scheduler/decisions/testing/decisions_fixture.h"

#include "absl/time/time.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched::decisions::testing {

kube::Pod WebPod(const std::string& node) {
  return kube::testing::MakePod()
      .Name("web-1")
      .Namespace("default")
      .UID("uid-web-1")
      .NodeName(node)
      .Obj();
}

DecisionList TwoAttempts() {
  Decision bound;
  bound.time = absl::FromUnixMillis(1795726800123);
  bound.pod = "default/web-1";
  bound.uid = "uid-web-1";
  bound.profile = "trimaran";
  bound.result = DecisionResult::kBound;
  bound.node = "node-7";
  bound.evaluated_nodes = 20;
  bound.feasible_nodes = 12;
  bound.fallbacks = {"TargetLoadPacking: metrics stale on 2 node(s), used requests"};
  bound.top = {
      TopNode{"node-7",
              285,
              {{"TargetLoadPacking", 97}, {"NodeResourcesFit", 88}, {"TaintToleration", 100}}},
      TopNode{"node-3",
              270,
              {{"TargetLoadPacking", 90}, {"NodeResourcesFit", 80}, {"TaintToleration", 100}}},
      TopNode{"node-12",
              201,
              {{"TargetLoadPacking", 61}, {"NodeResourcesFit", 40}, {"TaintToleration", 100}}}};
  Decision failed;
  failed.time = absl::FromUnixMillis(1795726790000);
  failed.pod = "default/web-1";
  failed.uid = "uid-web-1";
  failed.profile = "trimaran";
  failed.result = DecisionResult::kUnschedulable;
  failed.evaluated_nodes = 20;
  failed.message = "0/20 nodes are available: 20 Insufficient cpu.";
  return DecisionList{1000, {bound, failed}};
}

}  // namespace trimaran::sched::decisions::testing
