#include "tests/e2e/harness/invariants.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "rapidjson/document.h"

namespace trimaran::e2e {

absl::StatusOr<ClusterAudit> AuditCluster(kube::RestClient& client, const std::string& ns) {
  ClusterAudit audit;
  TRIMARAN_ASSIGN_OR_RETURN(kube::PodList pods, client.ListPods(ns, {}));
  TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList nodes, client.ListNodes({}));
  std::map<std::string, kube::Resource> used;
  std::map<std::string, int> count;
  for (const kube::Pod& p : pods.items) {
    ++audit.pods;
    if (p.spec.node_name.empty()) {
      audit.unbound.push_back(p.metadata.name);
      continue;
    }
    ++audit.bound;
    const kube::Resource r = kube::ComputePodRequests(p);
    kube::Resource& u = used[p.spec.node_name];
    u.milli_cpu += r.milli_cpu;
    u.memory += r.memory;
    ++count[p.spec.node_name];
    if (const kube::PodCondition* c = kube::FindCondition(p.status, kube::kPodScheduled);
        c != nullptr && c->status == kube::ConditionStatus::kFalse) {
      audit.bound_with_failure.push_back(p.metadata.name);
    }
  }
  for (const kube::Node& n : nodes.items) {
    kube::Resource alloc;
    for (const auto& [name, q] : n.status.allocatable) alloc.AddResource(name, q);
    const kube::Resource& u = used[n.metadata.name];
    const std::string& name = n.metadata.name;
    if (u.milli_cpu > alloc.milli_cpu) {
      audit.overcommitted.push_back(
          absl::StrCat(name, ": cpu ", u.milli_cpu, "m > ", alloc.milli_cpu, "m"));
    }
    if (u.memory > alloc.memory) {
      audit.overcommitted.push_back(absl::StrCat(name, ": memory ", u.memory, " > ", alloc.memory));
    }
    if (alloc.allowed_pod_number > 0 && count[name] > alloc.allowed_pod_number) {
      audit.overcommitted.push_back(
          absl::StrCat(name, ": pods ", count[name], " > ", alloc.allowed_pod_number));
    }
  }
  TRIMARAN_ASSIGN_OR_RETURN(
      std::string body,
      client.Raw("GET", absl::StrCat("/apis/events.k8s.io/v1/namespaces/", ns, "/events"), "",
                 "application/json"));
  rapidjson::Document d;
  d.Parse(body.c_str());
  if (!d.IsObject() || !d.HasMember("items") || !d["items"].IsArray()) {
    return absl::InternalError("events: not a list");
  }
  for (const auto& item : d["items"].GetArray()) {
    if (!item.HasMember("reason") || !item["reason"].IsString() || !item.HasMember("regarding") ||
        !item["regarding"].HasMember("name")) {
      continue;
    }
    const std::string reason = item["reason"].GetString();
    const std::string pod = item["regarding"]["name"].GetString();
    if (reason == "Scheduled") ++audit.scheduled_events[pod];
    if (reason == "FailedScheduling") ++audit.failed_scheduling[pod];
  }
  return audit;
}

std::string ClusterAudit::Violations(int expected_pods) const {
  std::vector<std::string> out;
  if (pods != expected_pods) out.push_back(absl::StrCat(pods, " pods, expected ", expected_pods));
  if (!unbound.empty()) {
    out.push_back(
        absl::StrCat(unbound.size(), " pods lost (unbound): ",
                     absl::StrJoin(unbound.begin(),
                                   unbound.begin() + std::min<size_t>(unbound.size(), 10), " ")));
  }
  for (const auto& [pod, n] : scheduled_events) {
    if (n > 1) out.push_back(absl::StrCat(pod, ": ", n, " Scheduled events (bound twice?)"));
  }
  for (const std::string& o : overcommitted) out.push_back(absl::StrCat("overcommitted ", o));
  for (const std::string& p : bound_with_failure) {
    out.push_back(absl::StrCat(p, ": bound with PodScheduled=False"));
  }
  return absl::StrJoin(out, "\n");
}

}  // namespace trimaran::e2e
