#include "tests/e2e/harness/invariants.h"

#include <algorithm>
#include <regex>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "rapidjson/document.h"

namespace trimaran::e2e {
namespace {

bool Terminal(const kube::Pod& p) {
  return p.status.phase == kube::PodPhase::kSucceeded || p.status.phase == kube::PodPhase::kFailed;
}

// Every pod of the cluster (all namespaces, every page).
absl::StatusOr<std::vector<kube::Pod>> ListAllPods(kube::RestClient& client) {
  std::vector<kube::Pod> out;
  kube::ListOptions options;
  options.limit = 5000;
  do {
    TRIMARAN_ASSIGN_OR_RETURN(kube::PodList page, client.ListPods("", options));
    for (kube::Pod& p : page.items) out.push_back(std::move(p));
    options.continue_token = page.metadata.continue_token;
  } while (!options.continue_token.empty());
  return out;
}

// One line per resource of `used` beyond `alloc` ("node: cpu 4100m > 4000m").
void CheckNode(const std::string& node, const kube::Resource& used, int pods,
               const kube::Resource& alloc, std::vector<std::string>& out) {
  if (used.milli_cpu > alloc.milli_cpu) {
    out.push_back(absl::StrCat(node, ": cpu ", used.milli_cpu, "m > ", alloc.milli_cpu, "m"));
  }
  if (used.memory > alloc.memory) {
    out.push_back(absl::StrCat(node, ": memory ", used.memory, " > ", alloc.memory));
  }
  if (used.ephemeral_storage > alloc.ephemeral_storage) {
    out.push_back(absl::StrCat(node, ": ephemeral-storage ", used.ephemeral_storage, " > ",
                               alloc.ephemeral_storage));
  }
  std::set<std::string> names;  // sorted: stable messages
  for (const auto& [name, value] : used.scalar) names.insert(name);
  for (const std::string& name : names) {
    const int64_t want = used.Get(name);
    const int64_t have = alloc.Get(name);
    if (want > have) out.push_back(absl::StrCat(node, ": ", name, " ", want, " > ", have));
  }
  if (pods > alloc.allowed_pod_number) {
    out.push_back(absl::StrCat(node, ": pods ", pods, " > ", alloc.allowed_pod_number));
  }
}

}  // namespace

std::map<std::string, int> CountBindings(const std::vector<const FaultProxy*>& proxies) {
  static const std::regex kBinding("/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding");
  std::map<std::string, int> out;
  for (const FaultProxy* proxy : proxies) {
    for (const RequestRecord& r : proxy->Requests()) {
      std::smatch m;
      if (r.request.method != "POST" || r.upstream_status != 201 ||
          !std::regex_match(r.request.path, m, kBinding)) {
        continue;
      }
      ++out[absl::StrCat(m[1].str(), "/", m[2].str())];
    }
  }
  return out;
}

absl::StatusOr<ClusterAudit> AuditCluster(kube::RestClient& client, const std::string& ns,
                                          const std::vector<const FaultProxy*>& proxies) {
  ClusterAudit audit;
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<kube::Pod> all, ListAllPods(client));
  TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList nodes, client.ListNodes({}));
  std::map<std::string, kube::Resource> used;
  std::map<std::string, int> count;
  for (const kube::Pod& p : all) {
    if (p.metadata.namespace_name == ns) {
      ++audit.pods;
      if (p.spec.node_name.empty()) {
        audit.unbound.push_back(p.metadata.name);
      } else {
        ++audit.bound;
        if (const kube::PodCondition* c = kube::FindCondition(p.status, kube::kPodScheduled);
            c != nullptr && c->status == kube::ConditionStatus::kFalse) {
          audit.bound_with_failure.push_back(p.metadata.name);
        }
      }
    }
    // What the node holds: every live pod bound to it, whatever its namespace.
    if (p.spec.node_name.empty() || Terminal(p)) continue;
    used[p.spec.node_name].Add(kube::ComputePodRequests(p));
    ++count[p.spec.node_name];
  }
  for (const kube::Node& n : nodes.items) {
    const std::string& name = n.metadata.name;
    const kube::Resource alloc = kube::Resource::FromResourceList(n.status.allocatable);
    CheckNode(name, used[name], count[name], alloc, audit.overcommitted);
    audit.requested_milli_cpu += used[name].milli_cpu;
    audit.allocatable_milli_cpu += alloc.milli_cpu;
  }
  audit.bindings = CountBindings(proxies);
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
  for (const auto& [pod, n] : bindings) {
    if (n > 1) out.push_back(absl::StrCat(pod, ": bound twice (", n, " Bindings answered 201)"));
  }
  for (const std::string& o : overcommitted) out.push_back(absl::StrCat("overcommitted ", o));
  for (const std::string& p : bound_with_failure) {
    out.push_back(absl::StrCat(p, ": bound with PodScheduled=False"));
  }
  return absl::StrJoin(out, "\n");
}

}  // namespace trimaran::e2e
