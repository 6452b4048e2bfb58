#include "tests/e2e/harness/cluster.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/http/status_mapping.h"
#include "common/status_macros.h"
#include "kube/rest_config.h"
#include "kube/testing/wrappers.h"
#include "rapidjson/document.h"
#include "tests/e2e/harness/eventually.h"

namespace trimaran::e2e {
namespace {

// Runs fn(0) ... fn(n-1) on `parallelism` threads (1: in order on this one), every
// index attempted. On failures: "<k> of <n> <what> failed; first: <message>", with the
// first failure's code.
absl::Status ForEachIndex(int n, int parallelism, absl::string_view what,
                          const std::function<absl::Status(int)>& fn) {
  std::atomic<int> next{0};
  absl::Mutex mu;
  int failures = 0;
  absl::Status first;
  auto work = [&] {
    for (int i = next++; i < n; i = next++) {
      absl::Status s = fn(i);
      if (s.ok()) continue;
      absl::MutexLock lock(&mu);
      if (failures++ == 0) first = std::move(s);
    }
  };
  if (parallelism <= 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < parallelism; ++t) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
  }
  if (failures == 0) return absl::OkStatus();
  return absl::Status(first.code(), absl::StrCat(failures, " of ", n, " ", what,
                                                 " failed; first: ", first.message()));
}

}  // namespace

std::vector<std::string> NumberedNames(absl::string_view prefix, int n) {
  std::vector<std::string> out;
  out.reserve(std::max(n, 0));
  for (int i = 0; i < n; ++i) out.push_back(absl::StrCat(prefix, "-", i));
  return out;
}

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(ClusterOptions options) {
  std::unique_ptr<Cluster> cluster(new Cluster());
  TRIMARAN_ASSIGN_OR_RETURN(cluster->control_plane_, ControlPlane::Start(options.control_plane));
  TRIMARAN_ASSIGN_OR_RETURN(cluster->kubeconfig_, cluster->control_plane_->WriteKubeconfig());
  TRIMARAN_ASSIGN_OR_RETURN(kube::RestConfig config, kube::LoadKubeconfig(cluster->kubeconfig_));
  if (options.qps.has_value()) config.qps = *options.qps;
  if (options.burst.has_value()) config.burst = *options.burst;
  TRIMARAN_ASSIGN_OR_RETURN(cluster->client_,
                            kube::RestClient::Create(config, RealClock::Get(), options.client));
  return cluster;
}

Cluster::~Cluster() = default;

absl::Status Cluster::Send(const std::string& method, const std::string& path,
                           const std::string& body, const std::string& content_type) const {
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r,
                            control_plane_->Request(method, path, body, content_type));
  if (r.status_code / 100 != 2) {
    return absl::InternalError(
        absl::StrCat(method, " ", path, ": HTTP ", r.status_code, ": ", r.body));
  }
  return absl::OkStatus();
}

std::vector<EventRecord> Cluster::Events(const std::string& ns) const {
  std::vector<EventRecord> out;
  absl::StatusOr<std::string> body = client_->Raw(
      "GET", absl::StrCat("/apis/events.k8s.io/v1/namespaces/", ns, "/events?limit=100000"), "",
      "application/json");
  if (!body.ok()) return out;
  rapidjson::Document d;
  d.Parse(body->c_str());
  if (!d.IsObject() || !d.HasMember("items") || !d["items"].IsArray()) return out;
  auto string_of = [](const rapidjson::Value& object, const char* key) {
    const auto it = object.FindMember(key);
    return it != object.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                            : std::string();
  };
  for (const rapidjson::Value& item : d["items"].GetArray()) {
    if (!item.IsObject()) continue;
    EventRecord& e = out.emplace_back();
    e.reason = string_of(item, "reason");
    e.type = string_of(item, "type");
    e.note = string_of(item, "note");
    const auto regarding = item.FindMember("regarding");
    if (regarding != item.MemberEnd() && regarding->value.IsObject()) {
      e.regarding = string_of(regarding->value, "name");
    }
  }
  return out;
}

std::vector<std::string> Cluster::EventNotes(const std::string& ns, const std::string& reason,
                                             const std::string& regarding) const {
  std::vector<std::string> notes;
  for (const EventRecord& e : Events(ns)) {
    if (e.reason == reason && e.regarding == regarding) notes.push_back(e.note);
  }
  return notes;
}

absl::Status Cluster::InstallPodGroupCrd(const std::string& crd_file,
                                         absl::Duration timeout) const {
  const std::string log = control_plane_->dir() + "/kubectl.log";
  const std::string cmd = absl::StrCat("kubectl --kubeconfig ", kubeconfig_, " apply -f ", crd_file,
                                       " > ", log, " 2>&1");
  if (std::system(cmd.c_str()) != 0) return absl::InternalError(absl::StrCat("failed: ", cmd));
  const bool served = Eventually(
      [&] {
        auto r = control_plane_->Request("GET", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "");
        return r.ok() && r->status_code == 200;
      },
      timeout);
  if (served) return absl::OkStatus();
  return absl::DeadlineExceededError("the PodGroup CRD is not served");
}

absl::Status Cluster::AddNode(const std::string& name, const NodeShape& shape) {
  const kube::testing::ResourceMap resources = {
      {"cpu", shape.cpu}, {"memory", shape.memory}, {"pods", shape.pods}};
  kube::testing::NodeWrapper w = kube::testing::MakeNode();
  w.Name(name).Labels(shape.labels).Capacity(resources).Allocatable(resources);
  if (shape.hostname_label) w.Label("kubernetes.io/hostname", name);
  const kube::Node node = w.Obj();
  TRIMARAN_RETURN_IF_ERROR(client_->CreateNode(node).status());
  const std::string path = absl::StrCat("/api/v1/nodes/", name);
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse patched,
                            control_plane_->Request("PATCH", path, R"({"spec":{"taints":null}})",
                                                    "application/merge-patch+json"));
  if (patched.status_code == 200) return absl::OkStatus();
  const std::string target = absl::StrCat("untaint node ", name);
  absl::Status s = http::StatusFromResponse(patched, {.method = "PATCH", .target = target});
  return s.ok() ? absl::InternalError(absl::StrCat(target, ": HTTP ", patched.status_code)) : s;
}

absl::Status Cluster::AddNodes(const std::vector<std::string>& names, const NodeShape& shape,
                               int parallelism) {
  return ForEachIndex(static_cast<int>(names.size()), parallelism, "nodes",
                      [&](int i) { return AddNode(names[i], shape); });
}

absl::Status Cluster::CreatePods(int n, const std::function<PodShape(int i)>& shape,
                                 const CreatePodsOptions& options) {
  return ForEachIndex(n, options.parallelism, "pods", [&](int i) -> absl::Status {
    const PodShape s = shape(i);
    kube::testing::PodWrapper w = kube::testing::MakePod()
                                      .Name(s.name)
                                      .Namespace(s.namespace_name)
                                      .SchedulerName(s.scheduler_name)
                                      .Labels(s.labels)
                                      .Req({{"cpu", s.cpu}, {"memory", s.memory}});
    if (!s.node_name.empty()) w.NodeName(s.node_name);
    kube::Pod pod = w.Obj();
    pod.spec.affinity = s.affinity;
    pod.spec.topology_spread_constraints = s.topology_spread_constraints;
    TRIMARAN_RETURN_IF_ERROR(client_->CreatePod(pod).status());
    if (options.on_created) options.on_created(pod);
    return absl::OkStatus();
  });
}

}  // namespace trimaran::e2e
