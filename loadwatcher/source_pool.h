#pragma once
// SourcePool: where a load-aware plugin (TargetLoadPacking, LoadVariationRiskBalancing,
// LowRiskOverCommitment) gets its metrics from, per plugin args (spec
// trimaran-and-load-watcher.md §1/§6):
//
//   args.watcherAddress set   -> Remote(address): "http://host:port" / "https://..."
//                                (paypal REST /watcher) or "grpc://host:port".
//   otherwise                 -> InProcess(args.metricProvider): an in-process Watcher
//                                over the provider the spec describes.
//
// The pool deduplicates: equal ProviderSpecs (and equal addresses) share one Client and
// one Watcher, whichever plugin, profile or framework asks, so the scheduler runs one
// watcher per distinct provider config and never one server per plugin (upstream starts
// a watcher per plugin instance).
//
// This is the interface the plugins see (through Handle::load_watcher_sources()). The
// production implementation is providers::ProviderSourcePool
// (providers/provider_source_pool.h); plugin tests use
// scheduler/plugins/load_aware/testing/fake_source_pool.h.
//
// Ownership: returned Clients are owned by the pool and live as long as it does.
// Thread-safety: implementations are safe for concurrent use.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loadwatcher/client.h"

namespace trimaran::lw {

// Upstream's MetricProviderSpec (pkg/apis/config: type, address, token,
// insecureSkipVerify).
struct ProviderSpec {
  // "KubernetesMetricsServer" (upstream's default), "Prometheus" or "SignalFx".
  std::string type = "KubernetesMetricsServer";
  std::string address{};
  std::string token{};
  bool insecure_skip_verify = false;

  friend bool operator==(const ProviderSpec&, const ProviderSpec&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const ProviderSpec& s) {
    return H::combine(std::move(h), s.type, s.address, s.token, s.insecure_skip_verify);
  }
};

class SourcePool {
 public:
  virtual ~SourcePool() = default;
  // A Client over the in-process Watcher for `spec` (created and started on first use).
  // InvalidArgument for an unknown type or an unusable spec.
  virtual absl::StatusOr<Client*> InProcess(const ProviderSpec& spec) = 0;
  // A Client for a remote load watcher. InvalidArgument for an address that is not
  // http://, https:// or grpc://.
  virtual absl::StatusOr<Client*> Remote(absl::string_view address) = 0;
};

}  // namespace trimaran::lw
