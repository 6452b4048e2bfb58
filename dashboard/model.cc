#include "dashboard/model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kube/api/pod_resources.h"
#include "kube/api/resource_list.h"

namespace trimaran::dashboard {
namespace {

constexpr absl::string_view kCpu = "cpu";
constexpr absl::string_view kMemory = "memory";
constexpr absl::string_view kPods = "pods";

absl::string_view Label(const kube::Node& node, absl::string_view key) {
  auto it = node.metadata.labels.find(std::string(key));
  return it == node.metadata.labels.end() ? absl::string_view() : absl::string_view(it->second);
}

CapacityType CapacityOf(const kube::Node& node) {
  if (std::optional<CapacityType> t = ParseCapacityType(Label(node, "karpenter.sh/capacity-type")))
    return *t;
  if (std::optional<CapacityType> t =
          ParseCapacityType(Label(node, "eks.amazonaws.com/capacityType")))
    return *t;
  if (Label(node, "eks.amazonaws.com/compute-type") == "fargate") return CapacityType::kFargate;
  if (Label(node, "cloud.google.com/gke-spot") == "true") return CapacityType::kSpot;
  if (Label(node, "kubernetes.azure.com/scalesetpriority") == "spot") return CapacityType::kSpot;
  return CapacityType::kUnknown;
}

double Amount(const kube::ResourceList& list, absl::string_view name) {
  auto it = list.find(name);
  if (it == list.end()) return 0;
  return static_cast<double>(name == kCpu ? it->second.MilliValue() : it->second.Value());
}

bool Terminal(const kube::Pod& pod) {
  return pod.status.phase == kube::PodPhase::kSucceeded ||
         pod.status.phase == kube::PodPhase::kFailed || pod.metadata.deletion_timestamp.has_value();
}

// The watcher's value for `type` on `host`: AVG, else Latest; nullopt when absent.
std::optional<double> WatcherPercent(const lw::NodeMetrics& node, absl::string_view type) {
  std::optional<double> latest;
  for (const lw::Metric& m : node.metrics) {
    if (m.type != type || !std::isfinite(m.value) || m.value < 0) continue;
    if (m.op == lw::kOpAvg) return m.value;
    if (m.op == lw::kOpLatest) latest = m.value;
  }
  return latest;
}

void AddInto(Totals& totals, const NodeRow& row) {
  if (totals.resources.empty()) {
    for (const ResourceFigures& r : row.resources) {
      ResourceFigures t;
      t.name = r.name;
      t.usage_state =
          r.usage_state == UsageState::kNotMeasured ? UsageState::kNotMeasured : UsageState::kOk;
      totals.resources.push_back(t);
    }
    totals.measured_allocatable.assign(row.resources.size(), 0);
  }
  ++totals.nodes;
  totals.pods += row.pods;
  bool lacks_usage = false;
  for (size_t i = 0; i < row.resources.size(); ++i) {
    const ResourceFigures& r = row.resources[i];
    ResourceFigures& t = totals.resources[i];
    t.allocatable += r.allocatable;
    t.requested += r.requested;
    if (r.usage_state == UsageState::kNotMeasured) continue;
    if (r.used.has_value()) {
      t.used = t.used.value_or(0) + *r.used;
      totals.measured_allocatable[i] += r.allocatable;
    } else {
      lacks_usage = true;
    }
  }
  if (lacks_usage || row.usage_state != UsageState::kOk) ++totals.nodes_without_usage;
  if (row.price_per_hour.has_value()) {
    totals.price_per_hour += *row.price_per_hour;
  } else {
    ++totals.nodes_without_price;
  }
}

// The sort key of a row, as a number when the key is numeric.
struct Key {
  bool numeric = false;
  bool missing = false;
  double number = 0;
  std::string text;
};

Key SortKey(const NodeRow& row, const std::vector<std::string>& resources, const std::string& key) {
  Key k;
  if (key == "creation" || key == "eks-node-viewer/node-age") {
    k.numeric = true;
    k.missing = !row.created.has_value();
    k.number =
        row.created.has_value() ? absl::ToDoubleSeconds(*row.created - absl::UnixEpoch()) : 0;
    return k;
  }
  if (key == "name") {
    k.text = row.name;
    return k;
  }
  if (key == "price") {
    k.numeric = true;
    k.missing = !row.price_per_hour.has_value();
    k.number = row.price_per_hour.value_or(0);
    return k;
  }
  if (key == "pods") {
    k.numeric = true;
    k.number = static_cast<double>(row.pods);
    return k;
  }
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceFigures& r = row.resources[i];
    if (key == resources[i] + "-requests" ||
        key == absl::StrCat("eks-node-viewer/node-", resources[i], "-usage")) {
      k.numeric = true;
      k.number = r.RequestedPercent();
      return k;
    }
    if (key == resources[i] + "-usage") {
      k.numeric = true;
      std::optional<double> p = r.UsedPercent();
      k.missing = !p.has_value();
      k.number = p.value_or(0);
      return k;
    }
  }
  auto it = row.labels.find(key);
  k.missing = it == row.labels.end();
  if (!k.missing) k.text = it->second;
  return k;
}

bool RowLess(const NodeRow& a, const NodeRow& b, const std::vector<std::string>& resources,
             const SortSpec& spec) {
  const Key ka = SortKey(a, resources, spec.key);
  const Key kb = SortKey(b, resources, spec.key);
  // Rows without a value go last in either direction.
  if (ka.missing != kb.missing) return kb.missing;
  if (!ka.missing) {
    if (ka.numeric && ka.number != kb.number) {
      return spec.ascending ? ka.number < kb.number : ka.number > kb.number;
    }
    if (!ka.numeric && ka.text != kb.text) {
      return spec.ascending ? NaturalLess(ka.text, kb.text) : NaturalLess(kb.text, ka.text);
    }
  }
  return NaturalLess(a.name, b.name);
}

void Regroup(ClusterView& view) {
  view.groups.clear();
  if (view.group_by.empty()) return;
  absl::flat_hash_map<std::string, size_t> index;
  for (size_t i = 0; i < view.rows.size(); ++i) {
    const std::string& g = view.rows[i].group;
    auto [it, inserted] = index.try_emplace(g, view.groups.size());
    if (inserted) view.groups.push_back(Group{.value = g, .rows = {}, .totals = {}});
    Group& group = view.groups[it->second];
    group.rows.push_back(i);
    AddInto(group.totals, view.rows[i]);
  }
}

}  // namespace

absl::string_view UsageStateName(UsageState state) {
  switch (state) {
    case UsageState::kOk:
      return "ok";
    case UsageState::kMissing:
      return "missing";
    case UsageState::kStale:
      return "stale";
    case UsageState::kNoWatcher:
      return "no-watcher";
    case UsageState::kNotMeasured:
      break;
  }
  return "not-measured";
}

double ResourceFigures::RequestedPercent() const {
  return allocatable > 0 ? requested * 100.0 / allocatable : 0;
}

std::optional<double> ResourceFigures::UsedPercent() const {
  if (!used.has_value()) return std::nullopt;
  return allocatable > 0 ? *used * 100.0 / allocatable : 0;
}

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ie = i;
      size_t je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare the numbers without leading zeros: by length, then digits.
      absl::string_view na = a.substr(i, ie - i);
      absl::string_view nb = b.substr(j, je - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

absl::StatusOr<SortSpec> ParseSortSpec(absl::string_view text) {
  SortSpec spec;
  std::vector<absl::string_view> parts = absl::StrSplit(text, absl::MaxSplits('=', 1));
  if (parts[0].empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--node-sort: empty key in \"", text, "\""));
  }
  spec.key = std::string(parts[0]);
  spec.ascending = false;
  if (parts.size() == 2) {
    if (parts[1] == "asc") {
      spec.ascending = true;
    } else if (parts[1] != "dsc" && parts[1] != "desc") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--node-sort: order must be asc or dsc, got \"", parts[1], "\" in \"", text, "\""));
    }
  }
  return spec;
}

std::string SortSpecString(const SortSpec& spec) {
  return absl::StrCat(spec.key, spec.ascending ? "=asc" : "=dsc");
}

std::string FormatAge(absl::Duration age) {
  if (age < absl::ZeroDuration()) age = absl::ZeroDuration();
  const int64_t s = absl::ToInt64Seconds(age);
  const int64_t d = s / 86400;
  const int64_t h = (s % 86400) / 3600;
  const int64_t m = (s % 3600) / 60;
  if (d > 0) return h > 0 ? absl::StrCat(d, "d", h, "h") : absl::StrCat(d, "d");
  if (h > 0) return m > 0 ? absl::StrCat(h, "h", m, "m") : absl::StrCat(h, "h");
  if (m > 0) return absl::StrCat(m, "m");
  return absl::StrCat(s, "s");
}

PodSummary SummarizePod(const kube::Pod& pod) {
  PodSummary s;
  s.node_name = pod.spec.node_name;
  s.running = pod.status.phase == kube::PodPhase::kRunning;
  s.terminal = Terminal(pod);
  if (!s.terminal) s.requests = kube::ComputePodRequests(pod);
  return s;
}

std::vector<PodSummary> SummarizePods(const std::vector<kube::Pod>& pods) {
  std::vector<PodSummary> out;
  out.reserve(pods.size());
  for (const kube::Pod& p : pods) out.push_back(SummarizePod(p));
  return out;
}

void PodTotals::Add(const PodSummary& pod) {
  if (pod.terminal) return;
  if (pod.node_name.empty()) {
    ++counts.pending;
    return;
  }
  ++(pod.running ? counts.running : counts.bound);
  NodePods& n = per_node[pod.node_name];
  n.requested.Add(pod.requests);
  ++n.pods;
}

void PodTotals::Remove(const PodSummary& pod) {
  if (pod.terminal) return;
  if (pod.node_name.empty()) {
    --counts.pending;
    return;
  }
  --(pod.running ? counts.running : counts.bound);
  auto it = per_node.find(pod.node_name);
  if (it == per_node.end()) return;
  if (--it->second.pods <= 0) {
    per_node.erase(it);
  } else {
    it->second.requested.Sub(pod.requests);
  }
}

PodTotals AggregatePods(const std::vector<PodSummary>& pods) {
  PodTotals t;
  for (const PodSummary& p : pods) t.Add(p);
  return t;
}

absl::StatusOr<ClusterView> BuildClusterView(const std::vector<kube::Node>& nodes,
                                             const PodTotals& pods,
                                             const lw::WatcherMetrics* metrics,
                                             absl::string_view metrics_error,
                                             const ModelOptions& options) {
  if (options.resources.empty()) {
    return absl::InvalidArgumentError("--resources: at least one resource is required");
  }
  ClusterView view;
  view.resources = options.resources;
  view.extra_labels = options.extra_labels;
  view.group_by = options.group_by;
  view.now = options.now;
  view.sort = SortSpecString(options.sort);
  UsageState snapshot_state = UsageState::kNoWatcher;
  if (metrics != nullptr) {
    view.has_metrics = true;
    view.metrics_source = metrics->source;
    view.metrics_window = metrics->window.duration;
    view.metrics_time = absl::FromUnixSeconds(metrics->timestamp);
    view.metrics_stale = options.now - *view.metrics_time > options.stale_after;
    snapshot_state = view.metrics_stale ? UsageState::kStale : UsageState::kOk;
  } else {
    view.metrics_error = std::string(metrics_error);
  }

  view.pods = pods.counts;
  view.rows.reserve(nodes.size());
  for (const kube::Node& node : nodes) {
    NodeRow row;
    row.name = node.metadata.name;
    row.instance_type = std::string(Label(node, "node.kubernetes.io/instance-type"));
    if (row.instance_type.empty()) {
      row.instance_type = std::string(Label(node, "beta.kubernetes.io/instance-type"));
    }
    row.capacity_type = CapacityOf(node);
    row.auto_mode = Label(node, "eks.amazonaws.com/compute-type") == "auto";
    row.zone = std::string(Label(node, "topology.kubernetes.io/zone"));
    if (row.zone.empty()) {
      row.zone = std::string(Label(node, "failure-domain.beta.kubernetes.io/zone"));
    }
    row.created = node.metadata.creation_timestamp;
    for (const kube::NodeCondition& c : node.status.conditions) {
      if (c.type == "Ready") row.ready = c.status == kube::ConditionStatus::kTrue;
    }
    row.cordoned = node.spec.unschedulable;
    for (const kube::Taint& t : node.spec.taints) {
      if ((t.key == "karpenter.sh/disruption" || t.key == "karpenter.sh/disrupted") &&
          t.effect == kube::TaintEffect::kNoSchedule) {
        row.cordoned = true;
      }
    }
    row.deleting = node.metadata.deletion_timestamp.has_value();
    for (const auto& [k, v] : node.metadata.labels) row.labels.emplace(k, v);
    const NodePods empty;
    auto pn = pods.per_node.find(row.name);
    const NodePods& p = pn == pods.per_node.end() ? empty : pn->second;
    row.pods = p.pods;
    row.allocatable_pods = static_cast<int64_t>(Amount(node.status.allocatable, kPods));

    const lw::NodeMetrics* nm = nullptr;
    if (metrics != nullptr) {
      auto it = metrics->data.node_metrics_map.find(row.name);
      if (it != metrics->data.node_metrics_map.end()) nm = &it->second;
    }
    row.usage_state = metrics == nullptr ? UsageState::kNoWatcher
                      : nm == nullptr    ? UsageState::kMissing
                                         : snapshot_state;
    for (const std::string& res : options.resources) {
      ResourceFigures f;
      f.name = res;
      f.allocatable = Amount(node.status.allocatable, res);
      f.requested =
          res == kPods ? static_cast<double>(p.pods) : static_cast<double>(p.requested.Get(res));
      const bool measured = res == kCpu || res == kMemory;
      if (measured) {
        f.usage_state = row.usage_state;
        if (nm != nullptr && f.usage_state == UsageState::kOk) {
          std::optional<double> pct =
              WatcherPercent(*nm, res == kCpu ? lw::kTypeCpu : lw::kTypeMemory);
          if (pct.has_value()) {
            f.used = *pct / 100.0 * Amount(node.status.capacity, res);
          } else {
            f.usage_state = UsageState::kMissing;
          }
        }
      }
      row.resources.push_back(std::move(f));
    }
    if (!options.disable_pricing) {
      double label_price = 0;
      absl::string_view label = Label(node, kPriceLabel);
      if (!label.empty() && absl::SimpleAtod(label, &label_price) && label_price >= 0 &&
          std::isfinite(label_price)) {
        row.price_per_hour = label_price;
        row.price_source = "label";
      } else if (options.prices != nullptr) {
        row.price_per_hour = options.prices->Lookup(row.instance_type, row.zone, row.capacity_type);
        if (row.price_per_hour.has_value()) row.price_source = "table";
      }
    }
    if (!options.group_by.empty()) {
      auto it = row.labels.find(options.group_by);
      row.group = it == row.labels.end() || it->second.empty() ? "-" : it->second;
    }
    view.rows.push_back(std::move(row));
  }
  for (const NodeRow& row : view.rows) AddInto(view.totals, row);
  if (view.totals.resources.empty()) {
    for (const std::string& res : options.resources) {
      ResourceFigures t;
      t.name = res;
      view.totals.resources.push_back(t);
    }
    view.totals.measured_allocatable.assign(options.resources.size(), 0);
  }
  SortView(view, options.sort);
  return view;
}

std::optional<std::string> LabelValue(const ClusterView& view, const NodeRow& row,
                                      absl::string_view key) {
  auto it = row.labels.find(key);
  if (it != row.labels.end()) return it->second;
  if (key == "eks-node-viewer/node-age") {
    if (!row.created.has_value()) return std::nullopt;
    return FormatAge(view.now - *row.created);
  }
  for (const ResourceFigures& r : row.resources) {
    if (key == absl::StrCat("eks-node-viewer/node-", r.name, "-usage")) {
      if (r.allocatable <= 0) return std::string("N/A");
      return absl::StrCat(static_cast<int64_t>(std::lround(r.RequestedPercent())), "%");
    }
  }
  return std::nullopt;
}

void SortView(ClusterView& view, const SortSpec& spec) {
  view.sort = SortSpecString(spec);
  const bool grouped = !view.group_by.empty();
  std::stable_sort(view.rows.begin(), view.rows.end(), [&](const NodeRow& a, const NodeRow& b) {
    // Groups are contiguous: by group value (natural order, unlabelled "-" last) first.
    if (grouped && a.group != b.group) {
      if ((a.group == "-") != (b.group == "-")) return b.group == "-";
      return NaturalLess(a.group, b.group);
    }
    return RowLess(a, b, view.resources, spec);
  });
  Regroup(view);
}

}  // namespace trimaran::dashboard
