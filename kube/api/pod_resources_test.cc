#include "kube/api/pod_resources.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::kube::testing::MakeResourceList;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

struct Want {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  std::vector<std::pair<std::string, int64_t>> scalar;
};

Resource ToResource(const Want& w) {
  Resource r;
  r.milli_cpu = w.milli_cpu;
  r.memory = w.memory;
  r.ephemeral_storage = w.ephemeral_storage;
  for (const auto& [name, v] : w.scalar) r.scalar[name] = v;
  return r;
}

struct TestCase {
  std::string name;
  Pod pod;
  Want want;           // ComputePodRequests(pod)
  Want want_non_zero;  // ComputePodRequests(pod, {.non_zero = true})
};

TEST(ComputePodRequestsTest, Table) {
  const std::vector<TestCase> cases = {
      {"no containers", MakePod().Obj(), {}, {}},
      {"best-effort container",
       MakePod().Container("nginx").Obj(),
       {},
       // No requests at all: the non-zero defaults 100m / 200Mi.
       {100, 200 * kMi}},
      {"one container",
       MakePod().Req({{"cpu", "500m"}, {"memory", "1Gi"}}).Obj(),
       {500, kGi},
       {500, kGi}},
      {"containers are summed",
       // 500m + 1500m = 2000m; 1Gi + 512Mi = 1536Mi
       MakePod()
           .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
           .Req({{"cpu", "1.5"}, {"memory", "512Mi"}})
           .Obj(),
       {2000, 1536 * kMi},
       {2000, 1536 * kMi}},
      {"explicit zero is kept by non-zero",
       // cpu 0 explicit -> 0 in both; memory missing -> 200Mi only in non-zero.
       MakePod().Req({{"cpu", "0"}}).Obj(),
       {0, 0},
       {0, 200 * kMi}},
      {"defaults apply per container",
       // Non-zero: c0 {cpu 300m, memory default 200Mi} + c1 {cpu default 100m, memory 1Gi}
       //   = 400m / 1Gi+200Mi.
       MakePod().Req({{"cpu", "300m"}}).Req({{"memory", "1Gi"}}).Obj(),
       {300, kGi},
       {400, kGi + 200 * kMi}},
      {"init container larger than containers",
       // max(containers 500m/256Mi, init 2000m/128Mi) = 2000m / 256Mi, per resource.
       MakePod()
           .InitReq({{"cpu", "2"}, {"memory", "128Mi"}})
           .Req({{"cpu", "500m"}, {"memory", "256Mi"}})
           .Obj(),
       {2000, 256 * kMi},
       {2000, 256 * kMi}},
      {"init container smaller than containers",
       MakePod().InitReq({{"cpu", "100m"}}).Req({{"cpu", "500m"}}).Obj(),
       {500, 0},
       // Non-zero memory: max(container default 200Mi, init default 200Mi) = 200Mi.
       {500, 200 * kMi}},
      {"several init containers: max, not sum",
       // max(1000m, 1500m, 700m) vs containers 200m -> 1500m
       MakePod()
           .InitReq({{"cpu", "1"}})
           .InitReq({{"cpu", "1500m"}})
           .InitReq({{"cpu", "700m"}})
           .Req({{"cpu", "200m"}})
           .Obj(),
       {1500, 0},
       {1500, 200 * kMi}},
      {"sidecar before a regular init container",
       // containersSum = 500 (c0) + 200 (sidecar) = 700m
       // init usage: sidecar 200; init 1000 + sidecar 200 = 1200 -> max 1200
       // pod = max(700, 1200) = 1200m
       MakePod().SidecarReq({{"cpu", "200m"}}).InitReq({{"cpu", "1"}}).Req({{"cpu", "500m"}}).Obj(),
       {1200, 0},
       // Non-zero memory: containersSum 200Mi + 200Mi = 400Mi; init usage: sidecar 200Mi,
       // init 200Mi + 200Mi = 400Mi -> 400Mi.
       {1200, 400 * kMi}},
      {"sidecar after a regular init container",
       // containersSum = 500 + 200 = 700m; init usage: init 1000 (no sidecar before it),
       // sidecar 200 -> max 1000; pod = max(700, 1000) = 1000m
       MakePod().InitReq({{"cpu", "1"}}).SidecarReq({{"cpu", "200m"}}).Req({{"cpu", "500m"}}).Obj(),
       {1000, 0},
       {1000, 400 * kMi}},
      {"sidecar dominates when large",
       // containersSum = 100 + 2000 = 2100m; init usage max(1000, 2000) -> pod 2100m
       MakePod().InitReq({{"cpu", "1"}}).SidecarReq({{"cpu", "2"}}).Req({{"cpu", "100m"}}).Obj(),
       {2100, 0},
       {2100, 400 * kMi}},
      {"sidecars interleaved with init containers",
       // s1 100, i1 500, s2 300, i2 200, containers 100
       // containersSum = 100 + 100 + 300 = 500
       // init usage: s1 100; i1 500+100 = 600; s2 100+300 = 400; i2 200+400 = 600 -> 600
       // pod = max(500, 600) = 600m
       MakePod()
           .SidecarReq({{"cpu", "100m"}})
           .InitReq({{"cpu", "500m"}})
           .SidecarReq({{"cpu", "300m"}})
           .InitReq({{"cpu", "200m"}})
           .Req({{"cpu", "100m"}})
           .Obj(),
       {600, 0},
       // Non-zero memory: containersSum 3 x 200Mi = 600Mi; init usage: s1 200, i1 400,
       // s2 400, i2 600 -> max(600, 600) = 600Mi.
       {600, 600 * kMi}},
      {"only sidecars",
       // containersSum = 0 + 100 + 200 = 300; init usage 100, 300 -> 300m
       MakePod().SidecarReq({{"cpu", "100m"}}).SidecarReq({{"cpu", "200m"}}).Obj(),
       {300, 0},
       {300, 400 * kMi}},
      {"overhead is added after the max",
       // max(containers 500m, init 1000m) = 1000m; + overhead 250m = 1250m
       // memory: max(1Gi, 0) + 120Mi
       MakePod()
           .InitReq({{"cpu", "1"}})
           .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
           .Overhead({{"cpu", "250m"}, {"memory", "120Mi"}})
           .Obj(),
       {1250, kGi + 120 * kMi},
       {1250, kGi + 120 * kMi}},
      {"pod-level resources replace the aggregate",
       // containers 500m+500m / 1Gi+1Gi, pod-level 3 / 4Gi -> 3000m / 4Gi, + overhead 100m
       MakePod()
           .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
           .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
           .PodReq({{"cpu", "3"}, {"memory", "4Gi"}})
           .Overhead({{"cpu", "100m"}})
           .Obj(),
       {3100, 4 * kGi},
       {3100, 4 * kGi}},
      {"pod-level cpu only",
       // cpu from the pod level (2000m), memory from the containers (max(512Mi, init 1Gi)).
       MakePod()
           .InitReq({{"memory", "1Gi"}})
           .Req({{"cpu", "100m"}, {"memory", "512Mi"}})
           .PodReq({{"cpu", "2"}})
           .Obj(),
       {2000, kGi},
       {2000, kGi}},
      {"pod-level hugepages replace, extended resources do not",
       // hugepages-2Mi: pod-level 256Mi replaces the container's 64Mi;
       // nvidia.com/gpu is not a pod-level resource: the container's 1 stays.
       MakePod()
           .Req({{"cpu", "1"}, {"hugepages-2Mi", "64Mi"}, {"nvidia.com/gpu", "1"}})
           .PodReq({{"hugepages-2Mi", "256Mi"}, {"nvidia.com/gpu", "4"}})
           .Obj(),
       {1000, 0, 0, {{"hugepages-2Mi", 256 * kMi}, {"nvidia.com/gpu", 1}}},
       {1000, 200 * kMi, 0, {{"hugepages-2Mi", 256 * kMi}, {"nvidia.com/gpu", 1}}}},
      {"extended resources follow the same rules",
       // gpu: containers 1 + 1 = 2; init 3 -> max 3. Non-zero never defaults gpus.
       MakePod()
           .InitReq({{"nvidia.com/gpu", "3"}})
           .Req({{"cpu", "1"}, {"nvidia.com/gpu", "1"}})
           .Req({{"cpu", "1"}, {"nvidia.com/gpu", "1"}})
           .Obj(),
       {2000, 0, 0, {{"nvidia.com/gpu", 3}}},
       // memory: containers 200Mi + 200Mi = 400Mi vs init 200Mi -> 400Mi; init cpu
       // defaults to 100m, below 2000m.
       {2000, 400 * kMi, 0, {{"nvidia.com/gpu", 3}}}},
      {"hugepages and ephemeral storage",
       MakePod()
           .Req(
               {{"ephemeral-storage", "1Gi"}, {"hugepages-2Mi", "128Mi"}, {"hugepages-1Gi", "2Gi"}})
           .Req({{"ephemeral-storage", "500M"}})
           .Obj(),
       // ephemeral: 1Gi + 500e6 bytes
       {0, 0, kGi + 500000000, {{"hugepages-2Mi", 128 * kMi}, {"hugepages-1Gi", 2 * kGi}}},
       {200,
        400 * kMi,
        kGi + 500000000,
        {{"hugepages-2Mi", 128 * kMi}, {"hugepages-1Gi", 2 * kGi}}}},
      {"unknown unqualified names are not accounted",
       // "foo" is neither native nor scalar; "example.com/foo" is an extended resource;
       // "kubernetes.io/batteries" a prefixed native (scalar) resource.
       MakePod()
           .Req({{"cpu", "1"},
                 {"foo", "5"},
                 {"example.com/foo", "2"},
                 {"kubernetes.io/batteries", "3"}})
           .Obj(),
       {1000, 0, 0, {{"example.com/foo", 2}, {"kubernetes.io/batteries", 3}}},
       {1000, 200 * kMi, 0, {{"example.com/foo", 2}, {"kubernetes.io/batteries", 3}}}},
      {"fractional quantities round up",
       // 0.5m cpu -> 1m (MilliValue rounds up); 1.5 bytes -> 2.
       MakePod().Req({{"cpu", "0.0005"}, {"memory", "1.5"}}).Obj(),
       {1, 2},
       {1, 2}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    const Resource got = ComputePodRequests(tc.pod);
    EXPECT_EQ(got, ToResource(tc.want)) << got.DebugString();
    const Resource got_nz = ComputePodRequests(tc.pod, {.non_zero = true});
    EXPECT_EQ(got_nz, ToResource(tc.want_non_zero)) << got_nz.DebugString();
  }
}

// In-place resize, from upstream's TestPodResourceRequests (component-helpers v0.37.2,
// UseStatusResources and InPlacePodLevelResourcesVerticalScaling on, as in 1.37).
TEST(ComputePodRequestsTest, InPlaceResizeTable) {
  constexpr int64_t kM = 1000 * 1000;
  const std::vector<TestCase> cases = {
      {"resized, infeasible: the spec is left out",
       MakePod()
           .Req({{"cpu", "4"}})
           .ActualResources("c0", {{"cpu", "2"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Infeasible")
           .Obj(),
       {2000},
       {2000, 200 * kMi}},
      {"resized, infeasible & in-progress: allocated beats actual",
       MakePod()
           .Req({{"cpu", "6"}})
           .AllocatedResources("c0", {{"cpu", "4"}})
           .ActualResources("c0", {{"cpu", "2"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Infeasible")
           .Obj(),
       {4000},
       {4000, 200 * kMi}},
      {"resized, no resize status: the spec counts",
       MakePod().Req({{"cpu", "4"}}).ActualResources("c0", {{"cpu", "2"}}).Obj(),
       {4000},
       {4000, 200 * kMi}},
      {"resized, deferred: the spec counts",
       MakePod()
           .Req({{"cpu", "4"}})
           .ActualResources("c0", {{"cpu", "2"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Deferred")
           .Obj(),
       {4000},
       {4000, 200 * kMi}},
      {"resized: per-resource 3-way maximum",
       MakePod()
           .Req({{"cpu", "30m"}, {"memory", "20M"}, {"ephemeral-storage", "10G"}})
           .AllocatedResources("c0",
                               {{"cpu", "20m"}, {"memory", "10M"}, {"ephemeral-storage", "30G"}})
           .ActualResources("c0", {{"cpu", "10m"}, {"memory", "30M"}, {"ephemeral-storage", "20G"}})
           .Obj(),
       {30, 30 * kM, 30000 * kM},
       {30, 30 * kM, 30000 * kM}},
      {"a pending shrink frees nothing until it is applied",
       // spec 1 cpu (the resize), allocated and running 3: holds 3.
       MakePod()
           .Req({{"cpu", "1"}})
           .AllocatedResources("c0", {{"cpu", "3"}})
           .ActualResources("c0", {{"cpu", "3"}})
           .Condition("PodResizeInProgress", ConditionStatus::kTrue)
           .Obj(),
       {3000},
       {3000, 200 * kMi}},
      {"a growth counts at once",
       MakePod()
           .Req({{"cpu", "3"}})
           .AllocatedResources("c0", {{"cpu", "1"}})
           .ActualResources("c0", {{"cpu", "1"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Deferred")
           .Obj(),
       {3000},
       {3000, 200 * kMi}},
      {"resized, restartable init container, infeasible",
       MakePod()
           .SidecarReq({{"cpu", "4"}})
           .ActualResources("sidecar0", {{"cpu", "2"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Infeasible")
           .Obj(),
       {2000},
       {2000, 200 * kMi}},
      {"resized, restartable init container, no resize status",
       MakePod().SidecarReq({{"cpu", "4"}}).ActualResources("sidecar0", {{"cpu", "2"}}).Obj(),
       {4000},
       {4000, 200 * kMi}},
      {"infeasible without statuses counts nothing of the containers",
       // containerAllocatedRequests and containerActuatedRequests are nil for every
       // container: the pod holds what the node runs, which nothing reports.
       MakePod()
           .Req({{"cpu", "1"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Infeasible")
           .Obj(),
       {},
       {100, 200 * kMi}},
      {"regular containers with empty requests, but status with non-empty requests",
       MakePod()
           .Container("app")
           .AllocatedResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}})
           .ActualResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}})
           .Obj(),
       {2000, kGi},
       {2000, kGi}},
      {"pod-level status aggregates replace the container statuses",
       MakePod()
           .Req({{"cpu", "1"}})
           .AllocatedResources("c0", {{"cpu", "8"}})
           .PodAllocatedResources({{"cpu", "2"}})
           .PodActualResources({{"cpu", "3"}})
           .Obj(),
       {3000},
       {3000, 200 * kMi}},
      {"falls back to container statuses when the pod-level allocation is absent",
       MakePod()
           .Req({{"cpu", "1"}})
           .AllocatedResources("c0", {{"cpu", "8"}})
           .PodActualResources({{"cpu", "3"}})
           .Obj(),
       {8000},
       {8000, 200 * kMi}},
      {"pod-level requests resized: the max of spec, actual and allocated",
       MakePod()
           .Req({{"cpu", "1"}})
           .PodReq({{"cpu", "2"}, {"memory", "1Gi"}})
           .PodAllocatedResources({{"cpu", "4"}, {"memory", "1Gi"}})
           .PodActualResources({{"cpu", "3"}, {"memory", "2Gi"}})
           .Obj(),
       {4000, 2 * kGi},
       {4000, 2 * kGi}},
      {"pod-level requests, infeasible resize: the spec is left out",
       MakePod()
           .PodReq({{"cpu", "8"}})
           .PodAllocatedResources({{"cpu", "2"}})
           .PodActualResources({{"cpu", "2"}})
           .Condition("PodResizePending", ConditionStatus::kTrue, "Infeasible")
           .Obj(),
       {2000},
       // No container to give the non-zero memory default to.
       {2000}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    const Resource got = ComputePodRequests(tc.pod);
    EXPECT_EQ(got, ToResource(tc.want)) << got.DebugString();
    const Resource got_nz = ComputePodRequests(tc.pod, {.non_zero = true});
    EXPECT_EQ(got_nz, ToResource(tc.want_non_zero)) << got_nz.DebugString();
  }
}

TEST(ComputePodRequestsTest, ExcludeOverhead) {
  const Pod pod =
      MakePod().Req({{"cpu", "1"}}).Overhead({{"cpu", "250m"}, {"memory", "1Mi"}}).Obj();
  EXPECT_EQ(ComputePodRequests(pod).milli_cpu, 1250);
  const Resource r = ComputePodRequests(pod, {.exclude_overhead = true});
  EXPECT_EQ(r.milli_cpu, 1000);
  EXPECT_EQ(r.memory, 0);
}

TEST(ResourceTest, FromResourceListOfNodeAllocatable) {
  const Node node = MakeNode()
                        .Capacity({{"cpu", "3920m"},
                                   {"memory", "15304808Ki"},
                                   {"ephemeral-storage", "74747546427"},
                                   {"pods", "110"},
                                   {"nvidia.com/gpu", "2"},
                                   {"hugepages-2Mi", "0"},
                                   {"attachable-volumes-aws-ebs", "25"}})
                        .Obj();
  const Resource r = Resource::FromResourceList(node.status.allocatable);
  EXPECT_EQ(r.milli_cpu, 3920);
  EXPECT_EQ(r.memory, int64_t{15304808} * 1024);
  EXPECT_EQ(r.ephemeral_storage, 74747546427);
  EXPECT_EQ(r.allowed_pod_number, 110);
  EXPECT_EQ(r.Get("nvidia.com/gpu"), 2);
  EXPECT_EQ(r.Get("hugepages-2Mi"), 0);
  EXPECT_EQ(r.Get("attachable-volumes-aws-ebs"), 25);
  EXPECT_EQ(r.Get("pods"), 110);
  EXPECT_EQ(r.Get("cpu"), 3920);
  EXPECT_EQ(r.Get("example.com/absent"), 0);
}

TEST(ResourceTest, Arithmetic) {
  Resource a;
  a.milli_cpu = 100;
  a.memory = 10;
  a.scalar["x.com/a"] = 1;
  Resource b;
  b.milli_cpu = 50;
  b.ephemeral_storage = 7;
  b.scalar["x.com/a"] = 4;
  b.scalar["x.com/b"] = 2;

  Resource sum = a;
  sum.Add(b);
  EXPECT_EQ(sum.milli_cpu, 150);
  EXPECT_EQ(sum.memory, 10);
  EXPECT_EQ(sum.ephemeral_storage, 7);
  EXPECT_EQ(sum.Get("x.com/a"), 5);
  EXPECT_EQ(sum.Get("x.com/b"), 2);

  sum.Sub(b);
  EXPECT_EQ(sum, a);  // x.com/b is back to 0, which equals absent

  Resource max = a;
  max.SetMaxResource(b);
  EXPECT_EQ(max.milli_cpu, 100);
  EXPECT_EQ(max.memory, 10);
  EXPECT_EQ(max.ephemeral_storage, 7);
  EXPECT_EQ(max.Get("x.com/a"), 4);
  EXPECT_EQ(max.Get("x.com/b"), 2);

  Resource z;
  EXPECT_TRUE(z.IsZero());
  z.scalar["x.com/a"] = 0;
  EXPECT_TRUE(z.IsZero());
  z.Set("memory", 1);
  EXPECT_FALSE(z.IsZero());
  EXPECT_EQ(z.DebugString(), "cpu=0m memory=1 x.com/a=0");
}

TEST(ResourceTest, SaturatesInsteadOfOverflowing) {
  Resource r;
  r.memory = std::numeric_limits<int64_t>::max() - 1;
  Resource one;
  one.memory = 10;
  r.Add(one);
  EXPECT_EQ(r.memory, std::numeric_limits<int64_t>::max());
  const Pod pod =
      MakePod().Req({{"memory", "4Ei"}}).Req({{"memory", "4Ei"}}).Req({{"memory", "4Ei"}}).Obj();
  EXPECT_EQ(ComputePodRequests(pod).memory, std::numeric_limits<int64_t>::max());
}

TEST(ResourceTest, ListConversionMatchesMakeResourceList) {
  const Resource r =
      Resource::FromResourceList(MakeResourceList({{"cpu", "1.5"}, {"memory", "1Gi"}}));
  EXPECT_EQ(r.milli_cpu, 1500);
  EXPECT_EQ(r.memory, kGi);
}

}  // namespace
}  // namespace trimaran::kube
