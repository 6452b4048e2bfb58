// ImageLocality end to end, against the reference: the real trimaran-scheduler (its
// default profile) and the real kube-scheduler 1.37 (its default profile) run side by
// side on one real etcd + kube-apiserver 1.37 (127.0.0.1) and see the same 12 nodes
// (64 CPU, 256Gi, Ready, untainted), in three sets of 4 (label e2e.trimaran.io/set) that
// the cases' pods select by nodeSelector. Each node's status.images is written through
// the status subresource before either scheduler starts, as a kubelet reports it.
// Sizes are fake (nothing is pulled); they are chosen so that ImageLocality decides each
// case by at least 25 points while every other default score is equal across a set
// (pods of 100m / 128Mi on 64-CPU nodes move the resource scores by under a point).
// Spread = nodes reporting the image / 12.
//
//   1. big: big-2 alone reports e2e.trimaran.io/big:v1 (24000 MiB, × 1/12 = 2000 MiB,
//      clamped to 1000): a pod of that image scores 100 there, 0 elsewhere.
//   2. spread: a pod of two images, solo:v1 (9000 MiB, on spread-0 only: × 1/12 = 750)
//      and shared:v1 (3000 MiB, on spread-1 and 4 nodes of the other sets: × 5/12 = 1250).
//      spread-1 scores 62, spread-0 36: the spread factor, not the raw size (which would
//      favour spread-0), decides.
//   3. init: a pod whose init container's image "e2e.trimaran.io/init" (no tag: read as
//      :latest) is on init-3 (12000 MiB × 1/12 = 1000) and whose container's image app:v1
//      is on init-1 (3600 MiB × 1/12 = 300); imageCount 2, max 2000: init-3 scores 49,
//      init-1 14. Without init containers (1.20's rule, max 1000) init-1 would win.
//
// Each case creates the same pod for both schedulers (namespace per scheduler) and
// expects both bound to the case's node: the same placement as kube-scheduler 1.37.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod.h"
#include "kube/rest_client.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakePod;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kSetLabel[] = "e2e.trimaran.io/set";
constexpr int kNodesPerSet = 4;
constexpr const char* kSets[] = {"big", "spread", "init"};
constexpr int64_t kMiB = 1024 * 1024;
constexpr absl::Duration kBindTimeout = absl::Seconds(60);

constexpr char kTrimaran[] = "trimaran";  // trimaran's default profile
constexpr char kKube[] = "kube";          // kube-scheduler 1.37's default profile

struct NodeImage {
  std::string name;
  int64_t mib;
};

// What each node reports in status.images (nodes not listed report none).
std::map<std::string, std::vector<NodeImage>> NodeImages() {
  const NodeImage shared{"e2e.trimaran.io/shared:v1", 3000};
  return {
      {"big-0", {shared}},
      {"big-1", {shared}},
      {"big-2", {{"e2e.trimaran.io/big:v1", 24000}}},
      {"spread-0", {{"e2e.trimaran.io/solo:v1", 9000}}},
      {"spread-1", {shared}},
      {"init-0", {shared}},
      {"init-1", {{"e2e.trimaran.io/app:v1", 3600}}},
      {"init-3", {{"e2e.trimaran.io/init:latest", 12000}, shared}},
  };
}

struct Case {
  std::string name;
  std::string set;
  std::vector<std::string> images;       // containers
  std::vector<std::string> init_images;  // init containers
  std::string want_node;
};

std::vector<Case> Cases() {
  return {
      {"big", "big", {"e2e.trimaran.io/big:v1"}, {}, "big-2"},
      {"spread",
       "spread",
       {"e2e.trimaran.io/solo:v1", "e2e.trimaran.io/shared:v1"},
       {},
       "spread-1"},
      {"init", "init", {"e2e.trimaran.io/app:v1"}, {"e2e.trimaran.io/init"}, "init-3"},
  };
}

struct Env {
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Subprocess> trimaran;
  std::unique_ptr<KubeScheduler> kube;
};

class ImageLocalityE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    const absl::Time start = absl::Now();
    env_ = std::make_unique<Env>();
    TRIMARAN_ASSERT_OK(StartEnv(*env_)) << Logs();
    std::printf("environment up in %s\n", absl::FormatDuration(absl::Now() - start).c_str());
  }

  void TearDown() override {
    if (HasFailure()) std::fprintf(stderr, "%s\n", Logs().c_str());
    if (env_ != nullptr) {
      if (env_->trimaran) env_->trimaran->Stop(absl::Seconds(20));
      if (env_->kube) env_->kube->process().Stop();
    }
    env_.reset();
  }

  std::string Logs() const {
    std::string out;
    if (env_ != nullptr && env_->trimaran) {
      absl::StrAppend(&out, "--- trimaran-scheduler ---\n", env_->trimaran->LogTail(8000), "\n");
    }
    if (env_ != nullptr && env_->kube) {
      absl::StrAppend(&out, "--- kube-scheduler ---\n", env_->kube->process().LogTail(8000), "\n");
    }
    return out;
  }

  // Control plane, the 12 nodes with their images, then both schedulers (so that each
  // lists the nodes with their images from the start).
  static absl::Status StartEnv(Env& env) {
    TRIMARAN_ASSIGN_OR_RETURN(env.cluster, Cluster::Start());
    Cluster& cluster = *env.cluster;
    ControlPlane& cp = cluster.control_plane();
    const std::map<std::string, std::vector<NodeImage>> images = NodeImages();
    for (const char* set : kSets) {
      for (int i = 0; i < kNodesPerSet; ++i) {
        const std::string name = absl::StrCat(set, "-", i);
        const auto it = images.find(name);
        TRIMARAN_RETURN_IF_ERROR(AddNode(
            cluster, name, set, it == images.end() ? std::vector<NodeImage>{} : it->second));
      }
    }
    TRIMARAN_ASSIGN_OR_RETURN(SchedulerProcess trimaran,
                              StartSchedulerProcess({.binary = kSchedulerBin,
                                                     .dir = cp.dir(),
                                                     .tag = "image-locality",
                                                     .config_yaml = SchedulerConfigYaml(
                                                         kTrimaran, /*leader_elect=*/false),
                                                     .kubeconfig = cluster.kubeconfig()}));
    env.trimaran = std::move(trimaran.process);
    TRIMARAN_ASSIGN_OR_RETURN(
        env.kube, KubeScheduler::Start(cp, {.kubeconfig = cluster.kubeconfig(),
                                            .profiles_yaml = "  - schedulerName: kube\n",
                                            .tag = "kube-scheduler"}));
    for (const std::string ns : {kTrimaran, kKube}) {
      TRIMARAN_RETURN_IF_ERROR(CreateNamespace(cluster, absl::StrCat("images-", ns)));
    }
    return absl::OkStatus();
  }

  // Node `name` of `set` (64 CPU, 256Gi, untainted), then its status: Ready and `images`.
  static absl::Status AddNode(Cluster& cluster, const std::string& name, const std::string& set,
                              const std::vector<NodeImage>& images) {
    TRIMARAN_RETURN_IF_ERROR(cluster.AddNode(
        name,
        {.cpu = "64", .memory = "256Gi", .labels = {{kSetLabel, set}}, .hostname_label = true}));
    std::vector<std::string> items;
    for (const NodeImage& image : images) {
      items.push_back(
          absl::StrCat(R"({"names":[")", image.name, R"("],"sizeBytes":)", image.mib * kMiB, "}"));
    }
    const std::string patch = absl::StrCat(
        R"({"status":{"conditions":[{"type":"Ready","status":"True",)"
        R"("reason":"KubeletReady","message":"kubelet is posting ready status"}],"images":[)",
        absl::StrJoin(items, ","), "]}}");
    TRIMARAN_ASSIGN_OR_RETURN(
        http::HttpResponse r,
        cluster.control_plane().Request("PATCH", absl::StrCat("/api/v1/nodes/", name, "/status"),
                                        patch, "application/merge-patch+json"));
    if (r.status_code != 200) {
      return absl::InternalError(
          absl::StrCat("node ", name, " status: HTTP ", r.status_code, ": ", r.body));
    }
    return absl::OkStatus();
  }

  static absl::Status CreateNamespace(Cluster& cluster, const std::string& name) {
    return cluster.client()
        .Raw("POST", "/api/v1/namespaces",
             absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", name,
                          R"("}})"),
             "application/json")
        .status();
  }

  // The case's pod for `scheduler`: its containers' and init containers' images, each
  // container requesting 100m / 128Mi, selecting the case's set.
  static kube::Pod CasePod(const Case& c, const std::string& scheduler) {
    kube::testing::PodWrapper w = MakePod()
                                      .Name(c.name)
                                      .Namespace(absl::StrCat("images-", scheduler))
                                      .SchedulerName(scheduler)
                                      .NodeSelector({{kSetLabel, c.set}});
    for (size_t i = 0; i < c.init_images.size(); ++i) {
      w.InitReq({{"cpu", "100m"}, {"memory", "128Mi"}});
    }
    for (size_t i = 0; i < c.images.size(); ++i) w.Req({{"cpu", "100m"}, {"memory", "128Mi"}});
    kube::Pod pod = std::move(w).Obj();
    for (size_t i = 0; i < c.init_images.size(); ++i) {
      pod.spec.init_containers[i].image = c.init_images[i];
    }
    for (size_t i = 0; i < c.images.size(); ++i) pod.spec.containers[i].image = c.images[i];
    return pod;
  }

  // The node `ns`/`name` is bound to, once it is ("" after kBindTimeout).
  std::string WaitBound(const std::string& ns, const std::string& name) const {
    std::string node;
    Eventually(
        [&] {
          absl::StatusOr<kube::Pod> pod = env_->cluster->client().GetPod(ns, name);
          if (pod.ok()) node = pod->spec.node_name;
          return !node.empty();
        },
        kBindTimeout);
    return node;
  }

  std::unique_ptr<Env> env_;
};

// Every case, trimaran's pod and kube-scheduler's: both on the node ImageLocality picks.
TEST_F(ImageLocalityE2ETest, SameNodeAsKubeScheduler) {
  for (const Case& c : Cases()) {
    for (const std::string sched : {kTrimaran, kKube}) {
      TRIMARAN_ASSERT_OK(env_->cluster->client().CreatePod(CasePod(c, sched)).status());
    }
  }
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::string trimaran = WaitBound(absl::StrCat("images-", kTrimaran), c.name);
    const std::string kube = WaitBound(absl::StrCat("images-", kKube), c.name);
    std::printf("[image-locality] %s: trimaran %s, kube-scheduler %s (want %s)\n", c.name.c_str(),
                trimaran.c_str(), kube.c_str(), c.want_node.c_str());
    EXPECT_EQ(kube, c.want_node) << "the reference disagrees with the case's arithmetic";
    EXPECT_EQ(trimaran, c.want_node);
    EXPECT_EQ(trimaran, kube);
  }
}

}  // namespace
}  // namespace trimaran::e2e
