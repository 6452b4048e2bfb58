#pragma once
// Where the node view's inputs come from (docs/trimaranctl.md "nodes"): nodes, the
// pods' requests per node and a load-watcher snapshot.
//
//   ClusterSource     an interface, so the view, the live view and the web service are
//                     tested with kube::testing::FakeClient and FakeLoadWatcherClient.
//   ApiClusterSource  lists nodes and pods from a kube::Client (paged: never more than a
//                     page of full pods in memory) and reads a loadwatcher::Client (REST
//                     /watcher or gRPC) at every Fetch: the one-shot `-o` output.
//   InformerClusterSource (informer_source.h) is the live one.
//
// Errors: a failed node or pod list is the client's error (the fetch fails); a failed
// load-watcher read is NOT an error: usage is shown as unavailable (never as idle) with
// the reason.
//
// Thread-safety: ApiClusterSource is safe for concurrent Fetch calls when its clients
// are (kube::Client and loadwatcher::Client are); ReadWatcher is reentrant.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dashboard/model.h"
#include "kube/api/node.h"
#include "kube/client.h"
#include "loadwatcher/client.h"

namespace trimaran::dashboard {

struct ClusterInputs {
  std::vector<kube::Node> nodes;
  PodTotals pods;  // aggregated page by page / event by event: full pods are never all held
  lw::WatcherMetricsPtr metrics;  // null when unavailable
  std::string metrics_error;      // why
};

class ClusterSource {
 public:
  virtual ~ClusterSource() = default;
  virtual absl::StatusOr<ClusterInputs> Fetch() = 0;
};

// Reads the load watcher's snapshot for `window` into in.metrics, or the reason there is
// none into in.metrics_error (`watcher` null: "no --watcher given"). Never fails.
void ReadWatcher(lw::Client* watcher, const std::string& window, ClusterInputs& in);

class ApiClusterSource final : public ClusterSource {
 public:
  // `watcher` may be null (no usage). Both are borrowed and must outlive this.
  ApiClusterSource(kube::Client& kube, lw::Client* watcher, std::string node_selector,
                   std::string window);
  absl::StatusOr<ClusterInputs> Fetch() override;

 private:
  kube::Client& kube_;
  lw::Client* watcher_;
  const std::string node_selector_;
  const std::string window_;
};

}  // namespace trimaran::dashboard
