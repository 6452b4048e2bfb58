#include "providers/metrics_server/metrics_server_provider.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_parse.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "kube/api/resource_list.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"

namespace trimaran::providers::metrics_server {
namespace {

// Page size for ListNodes; the continue token is followed to the end.
constexpr int64_t kNodePageSize = 500;

// The string member `name` of `obj`, or "" when absent or not a string.
absl::string_view StringMember(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return "";
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return absl::string_view(it->value.GetString(), it->value.GetStringLength());
}

absl::StatusOr<kube::Quantity> UsageQuantity(const rapidjson::Value& usage, const char* resource,
                                             absl::string_view node) {
  absl::string_view text = StringMember(usage, resource);
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node metrics ", node, ": usage.", resource, " missing"));
  }
  auto q = kube::Quantity::Parse(std::string_view(text.data(), text.size()));
  if (!q.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node metrics ", node, ": usage.", resource, ": ", q.status().message()));
  }
  return *q;
}

// The node's capacity (or allocatable) of `resource`; nullptr when neither has it.
const kube::Quantity* Denominator(const kube::Node& node, std::string_view resource,
                                  bool use_allocatable) {
  const kube::ResourceList& first =
      use_allocatable ? node.status.allocatable : node.status.capacity;
  const kube::ResourceList& second =
      use_allocatable ? node.status.capacity : node.status.allocatable;
  if (auto it = first.find(resource); it != first.end()) return &it->second;
  if (auto it = second.find(resource); it != second.end()) return &it->second;
  return nullptr;
}

lw::Metric LatestMetric(absl::string_view type, double value) {
  lw::Metric m;
  m.type = std::string(type);
  m.op = std::string(lw::kOpLatest);
  m.value = value;
  return m;
}

}  // namespace

absl::StatusOr<NodeUsageList> ParseNodeMetricsList(absl::string_view json) {
  rapidjson::Document doc;
  if (absl::Status s = ParseJsonDocument(json, doc, JsonLimits{}, "decode NodeMetricsList");
      !s.ok()) {
    return absl::InternalError(s.message());
  }
  if (!doc.IsObject()) return absl::InternalError("decode NodeMetricsList: not an object");
  // Read through a const view: RapidJSON's non-const MemberIterator comparisons are
  // ambiguous under C++20's reversed operators.
  const rapidjson::Value& root = doc;
  auto items = root.FindMember("items");
  if (items == root.MemberEnd() || !(items->value.IsArray() || items->value.IsNull())) {
    return absl::InternalError("decode NodeMetricsList: no items array");
  }
  NodeUsageList out;
  if (items->value.IsNull()) return out;
  out.items.reserve(items->value.Size());
  for (const rapidjson::Value& item : items->value.GetArray()) {
    auto meta = item.IsObject() ? item.FindMember("metadata") : item.MemberEnd();
    absl::string_view name =
        (item.IsObject() && meta != item.MemberEnd()) ? StringMember(meta->value, "name") : "";
    if (name.empty()) {
      out.errors.push_back(absl::InvalidArgumentError("node metrics item without metadata.name"));
      continue;
    }
    auto usage = item.FindMember("usage");
    if (usage == item.MemberEnd() || !usage->value.IsObject()) {
      out.errors.push_back(
          absl::InvalidArgumentError(absl::StrCat("node metrics ", name, ": no usage")));
      continue;
    }
    auto cpu = UsageQuantity(usage->value, "cpu", name);
    auto memory = UsageQuantity(usage->value, "memory", name);
    if (!cpu.ok() || !memory.ok()) {
      out.errors.push_back(!cpu.ok() ? cpu.status() : memory.status());
      continue;
    }
    out.items.push_back(NodeUsage{std::string(name), *cpu, *memory});
  }
  return out;
}

MetricsServerProvider::MetricsServerProvider(kube::Client& client, Options options)
    : client_(client), options_(options) {}

std::string MetricsServerProvider::Name() const { return std::string(lw::kProviderMetricsServer); }

absl::StatusOr<lw::HostsMetrics> MetricsServerProvider::FetchAllHostsMetrics(
    const lw::Window& /*window: metrics-server has only the latest sample*/) {
  absl::StatusOr<std::string> body = client_.Raw("GET", kNodeMetricsPath);
  if (!body.ok()) return Annotate(body.status(), "list node metrics");
  TRIMARAN_ASSIGN_OR_RETURN(NodeUsageList usage, ParseNodeMetricsList(*body));

  // All nodes, following the continue token.
  std::map<std::string, kube::Node, std::less<>> nodes;
  kube::ListOptions list_options;
  list_options.limit = kNodePageSize;
  while (true) {
    absl::StatusOr<kube::NodeList> page_or = client_.ListNodes(list_options);
    if (!page_or.ok()) return Annotate(page_or.status(), "list nodes for capacities");
    kube::NodeList& page = *page_or;
    for (kube::Node& node : page.items) {
      std::string name = node.metadata.name;
      nodes.insert_or_assign(std::move(name), std::move(node));
    }
    if (page.metadata.continue_token.empty()) break;
    list_options.continue_token = page.metadata.continue_token;
  }

  lw::HostsMetrics out;
  out.partial_errors = std::move(usage.errors);
  std::vector<std::string> unknown;
  for (const NodeUsage& item : usage.items) {
    auto it = nodes.find(item.name);
    if (it == nodes.end()) {
      unknown.push_back(item.name);
      continue;
    }
    const kube::Quantity* cpu_cap =
        Denominator(it->second, kube::kResourceCPU, options_.use_allocatable);
    const kube::Quantity* mem_cap =
        Denominator(it->second, kube::kResourceMemory, options_.use_allocatable);
    if (cpu_cap == nullptr || mem_cap == nullptr || cpu_cap->MilliValue() <= 0 ||
        mem_cap->Value() <= 0) {
      out.partial_errors.push_back(absl::FailedPreconditionError(
          absl::StrCat("node ", item.name, ": no positive cpu/memory capacity")));
      continue;
    }
    // As upstream: millicores over millicores, bytes over bytes, both as integers.
    double cpu = 100.0 * static_cast<double>(item.cpu.MilliValue()) /
                 static_cast<double>(cpu_cap->MilliValue());
    double memory =
        100.0 * static_cast<double>(item.memory.Value()) / static_cast<double>(mem_cap->Value());
    lw::NodeMetrics& nm = out.nodes[item.name];
    nm.metrics = {LatestMetric(lw::kTypeCpu, cpu), LatestMetric(lw::kTypeMemory, memory)};
  }
  if (!unknown.empty()) {
    Log(Component::kProvider)
        .warn("metrics-server reports nodes not in the node list nodes=\"{}\"",
              absl::StrJoin(unknown, ","));
    out.partial_errors.push_back(absl::NotFoundError(
        absl::StrCat("metrics-server reports ", unknown.size(),
                     " node(s) not in the node list: ", absl::StrJoin(unknown, ", "))));
  }
  // Nodes with no item at all (items that were skipped are reported above).
  absl::flat_hash_set<absl::string_view> reported;
  reported.reserve(usage.items.size());
  for (const NodeUsage& item : usage.items) reported.insert(item.name);
  std::vector<absl::string_view> missing;
  for (const auto& [name, node] : nodes) {
    if (!reported.contains(name)) missing.push_back(name);
  }
  if (!missing.empty()) {
    out.partial_errors.push_back(
        absl::NotFoundError(absl::StrCat("metrics-server has no metrics for ", missing.size(),
                                         " node(s): ", absl::StrJoin(missing, ", "))));
  }
  return out;
}

absl::StatusOr<std::vector<lw::Metric>> MetricsServerProvider::FetchHostMetrics(
    absl::string_view host, const lw::Window& window) {
  TRIMARAN_ASSIGN_OR_RETURN(lw::HostsMetrics all, FetchAllHostsMetrics(window));
  auto it = all.nodes.find(host);
  if (it == all.nodes.end()) {
    return absl::NotFoundError(absl::StrCat("no metrics-server metrics for node ", host));
  }
  return std::move(it->second.metrics);
}

absl::Status MetricsServerProvider::Health() {
  return client_.Raw("GET", kNodeMetricsPath).status();
}

}  // namespace trimaran::providers::metrics_server
