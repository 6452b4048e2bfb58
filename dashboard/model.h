#pragma once
// The data model of `trimaranctl nodes`: one row per node with what is requested, what
// is really used and what it costs, a cluster summary, sorting and grouping. Pure: it
// turns nodes, pods and a load-watcher snapshot into a ClusterView; documents.h and
// terminal/layout.h render it, cluster_source.h fetches the inputs.
//
// Definitions (docs/trimaranctl.md, spec dashboard-and-simulator.md §A1, §A3):
// - Pods: every pod that is not Succeeded, Failed or deleting. A node's requests are
//   the sum of kube::ComputePodRequests of the pods bound to it (init containers,
//   sidecars, pod-level resources and overhead as the scheduler counts them).
// - Request % = requested ÷ status.allocatable (0 when allocatable is 0).
// - Usage: the load watcher reports percentages of node *capacity*. A value is first
//   turned into an absolute amount (pct × capacity) and then divided by allocatable,
//   so both bars have one denominator. CPU and memory only; the AVG operator of the
//   window, else Latest. Usage is kMissing when the snapshot has no value for the node,
//   kStale when the snapshot is older than `stale_after`, kNoWatcher when no snapshot
//   could be read. A node without fresh usage is never counted as idle: its usage is
//   absent (not 0), and the summary's used % only covers nodes with fresh usage.
// - Capacity type: karpenter.sh/capacity-type (on-demand|spot|reserved), else
//   eks.amazonaws.com/capacityType (ON_DEMAND|SPOT), else Fargate when
//   eks.amazonaws.com/compute-type=fargate, else GKE's cloud.google.com/gke-spot=true
//   or AKS's kubernetes.azure.com/scalesetpriority=spot (spot), else unknown (`-`).
//   compute-type=auto adds "/Auto".
// - Price: the label eks-node-viewer/instance-price, else the PriceTable
//   (price_table.h); unknown is nullopt. Monthly = hourly × 730.
// - Cordoned: spec.unschedulable or a karpenter.sh/disruption or karpenter.sh/disrupted
//   NoSchedule taint. Deleting: metadata.deletionTimestamp.
//
// Thread-safety: pure functions over values.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "dashboard/price_table.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_resources.h"
#include "loadwatcher/metrics.h"

namespace trimaran::dashboard {

inline constexpr char kPriceLabel[] = "eks-node-viewer/instance-price";
inline constexpr double kHoursPerMonth = 730;

enum class UsageState { kOk, kMissing, kStale, kNoWatcher, kNotMeasured };
// "ok", "missing", "stale", "no-watcher", "not-measured" (resources the watcher does not
// report, e.g. pods).
absl::string_view UsageStateName(UsageState state);

// One resource of one node (or a total). cpu in millicores, memory and storage in
// bytes, pods and extended resources in units.
struct ResourceFigures {
  std::string name;
  double allocatable = 0;
  double requested = 0;
  std::optional<double> used;  // absent unless usage_state is kOk
  UsageState usage_state = UsageState::kNotMeasured;
  // Percentages of allocatable (0 when allocatable is 0).
  double RequestedPercent() const;
  std::optional<double> UsedPercent() const;
};

struct NodeRow {
  std::string name;
  std::string instance_type;  // "" when unlabelled
  CapacityType capacity_type = CapacityType::kUnknown;
  bool auto_mode = false;  // eks.amazonaws.com/compute-type=auto
  std::string zone;
  std::optional<absl::Time> created;
  bool ready = false;
  bool cordoned = false;
  bool deleting = false;
  int64_t pods = 0;
  int64_t allocatable_pods = 0;
  std::map<std::string, std::string, std::less<>> labels;
  std::vector<ResourceFigures> resources;  // in ModelOptions::resources order
  std::optional<double> price_per_hour;
  std::string price_source;                  // "label", "table", ""
  UsageState usage_state = UsageState::kOk;  // of cpu/memory as a whole
  std::string group;  // the value of ModelOptions::group_by ("-" if unlabelled)
};

struct Totals {
  int64_t nodes = 0;
  int64_t pods = 0;
  std::vector<ResourceFigures> resources;  // used: sum over nodes with fresh usage
  // Per resource: allocatable of the nodes whose usage is fresh (the used % base).
  std::vector<double> measured_allocatable;
  int64_t nodes_without_usage = 0;
  double price_per_hour = 0;  // sum of the known prices
  int64_t nodes_without_price = 0;
};

struct Group {
  std::string value;
  std::vector<size_t> rows;  // indices into ClusterView::rows
  Totals totals;
};

// What the view needs of a pod, kept instead of the pod itself (150,000 full pods take
// hundreds of MB; their summaries a few tens).
struct PodSummary {
  std::string node_name;    // "" = not bound
  bool running = false;     // status.phase Running
  bool terminal = false;    // Succeeded, Failed or deleting: not counted
  kube::Resource requests;  // kube::ComputePodRequests
};
PodSummary SummarizePod(const kube::Pod& pod);
std::vector<PodSummary> SummarizePods(const std::vector<kube::Pod>& pods);

struct PodCounts {
  int64_t pending = 0;  // not bound to a node
  int64_t running = 0;  // bound and Running
  int64_t bound = 0;    // bound, not Running yet
};

// The pods' requests and counts per node: all the view needs of the pods. Kept up to
// date event by event by the live view's informers (Add the new summary, Remove the old
// one), or built once from a list.
struct NodePods {
  kube::Resource requested;
  int64_t pods = 0;
};
struct PodTotals {
  absl::flat_hash_map<std::string, NodePods> per_node;
  PodCounts counts;
  // Counts `pod` (terminal pods are ignored).
  void Add(const PodSummary& pod);
  // Undoes Add(pod) (a node whose last pod leaves is dropped).
  void Remove(const PodSummary& pod);
};
PodTotals AggregatePods(const std::vector<PodSummary>& pods);

struct ClusterView {
  std::vector<std::string> resources;
  std::vector<std::string> extra_labels;
  std::vector<NodeRow> rows;  // sorted
  Totals totals;
  PodCounts pods;
  std::string group_by;  // "" = no grouping
  // Rows of one group are contiguous: sorted by group value (natural order, "-" last),
  // then by the sort spec.
  std::vector<Group> groups;
  // The snapshot the usage came from.
  bool has_metrics = false;
  std::string metrics_source;
  std::string metrics_window;
  std::optional<absl::Time> metrics_time;
  bool metrics_stale = false;  // older than ModelOptions::stale_after
  std::string metrics_error;   // why there is no snapshot (kNoWatcher)
  absl::Time now;
  std::string sort;  // the normalised sort spec ("creation=dsc")
};

// --node-sort: `<key>[=asc|dsc]`. Keys: creation, name, price, pods,
// <resource>-requests, <resource>-usage (percent of allocatable), or any node label
// (eks-node-viewer/node-age is creation). Ties go to the natural order of names.
struct SortSpec {
  std::string key = "creation";
  bool ascending = false;
};
absl::StatusOr<SortSpec> ParseSortSpec(absl::string_view text);
std::string SortSpecString(const SortSpec& spec);

struct ModelOptions {
  std::vector<std::string> resources = {"cpu"};
  std::vector<std::string> extra_labels;
  SortSpec sort;
  std::string group_by;                // a node label, "" = none
  const PriceTable* prices = nullptr;  // null: every price unknown
  bool disable_pricing = false;
  absl::Duration stale_after = absl::Minutes(2);
  absl::Time now = absl::UnixEpoch();
};

// Builds the view. `metrics` null: no snapshot (every node kNoWatcher; `metrics_error`
// says why). InvalidArgument for an empty resource list.
absl::StatusOr<ClusterView> BuildClusterView(const std::vector<kube::Node>& nodes,
                                             const PodTotals& pods,
                                             const lw::WatcherMetrics* metrics,
                                             absl::string_view metrics_error,
                                             const ModelOptions& options);

// The value shown for an --extra-labels column: the node's label, else a computed label
// as eks-node-viewer has them (`eks-node-viewer/node-age`: the age;
// `eks-node-viewer/node-<resource>-usage`: the request % of a resource in the view, "NN%",
// or "N/A" without allocatable), else nullopt (shown `-`, JSON null).
std::optional<std::string> LabelValue(const ClusterView& view, const NodeRow& row,
                                      absl::string_view key);

// Re-sorts `view` (rows and groups) by `spec`; used by the terminal view's sort key.
void SortView(ClusterView& view, const SortSpec& spec);

// "3d4h", "5h12m", "42m", "17s": the two largest units of `age`.
std::string FormatAge(absl::Duration age);

// Natural order: "node-2" < "node-10".
bool NaturalLess(absl::string_view a, absl::string_view b);

}  // namespace trimaran::dashboard
