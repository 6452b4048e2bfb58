#pragma once
// MetricsProvider: the seam between the Watcher and a metrics backend (metrics-server,
// Prometheus, SignalFx; providers/*). The Watcher calls FetchAllHostsMetrics once per
// window per fetch interval and Health() for GET /watcher/health.
//
// Partial results: upstream discards a whole fetch when any one query fails (spec
// §5.4/§5.6: a failing bandwidth query throws away CPU and memory). Our contract lets a
// provider return what it did get together with the errors of the parts that failed
// (HostsMetrics::partial_errors); the Watcher keeps the data and counts the errors. A
// non-OK StatusOr means nothing usable came back; the Watcher then keeps its last good
// snapshot for that window.
//
// Thread-safety: implementations must be safe for concurrent use (the Watcher fetches
// from its own thread while /watcher/health calls Health() from HTTP workers).
// Ownership: the Watcher borrows its provider; the provider must outlive it.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loadwatcher/metrics.h"

namespace trimaran::lw {

// The result of one "fetch all hosts" for one window.
struct HostsMetrics {
  // Host -> metrics, in the schema's shape (Metric::rollup etc. filled by the provider).
  NodeMetricsMap nodes{};
  // Errors of the queries/resources that failed while others succeeded, each naming the
  // query or resource. Empty when everything succeeded.
  std::vector<absl::Status> partial_errors{};
};

class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;

  // The provider name written as the snapshot's `source`: "KubernetesMetricsServer",
  // "Prometheus", "SignalFx". Constant for the provider's lifetime.
  virtual std::string Name() const = 0;

  // Metrics of one host over `window` (upstream has it but its watcher never calls it).
  virtual absl::StatusOr<std::vector<Metric>> FetchHostMetrics(absl::string_view host,
                                                               const Window& window) = 0;

  // Metrics of every host over `window`; see "Partial results" above.
  virtual absl::StatusOr<HostsMetrics> FetchAllHostsMetrics(const Window& window) = 0;

  // OK when the backend answers. Served by GET /watcher/health (OK: 200, else 503).
  virtual absl::Status Health() = 0;
};

using MetricsProviderPtr = std::unique_ptr<MetricsProvider>;

}  // namespace trimaran::lw
