#pragma once
// SourcePool: where a load-aware plugin (TargetLoadPacking, LoadVariationRiskBalancing,
// LowRiskOverCommitment) gets its metrics from, per plugin args (spec
// trimaran-and-load-watcher.md §1/§6):
//
//   args.watcherAddress set   -> ConnectRemote({address, watcherCAFile,
//                                watcherTokenFile}): "http://host:port" / "https://..."
//                                (paypal REST /watcher), "grpc://host:port" or, over TLS,
//                                "grpcs://host:port". Remote(address) is the same
//                                without a CA file or token.
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
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loadwatcher/client.h"

namespace trimaran::lw {

// Upstream's MetricProviderSpec (pkg/apis/config: type, address, token,
// insecureSkipVerify), plus what a production backend needs (docs/load-watcher.md):
// a token file re-read on every fetch, a CA bundle and a client certificate, extra
// request headers (a tenant header for Grafana Mimir, say) and, for Prometheus, the
// node label(s) and the CPU/memory series names.
struct ProviderSpec {
  // "KubernetesMetricsServer" (upstream's default), "Prometheus" or "SignalFx".
  std::string type = "KubernetesMetricsServer";
  std::string address{};
  std::string token{};
  bool insecure_skip_verify = false;
  std::string token_file{};  // Prometheus: bearer token read from this file at every fetch
  std::string ca_file{};     // PEM CA bundle verifying the provider
  std::string client_cert_file{};
  std::string client_key_file{};
  std::vector<std::pair<std::string, std::string>> headers{};  // sent with every request
  std::vector<std::string> node_labels{};                      // Prometheus; empty: {"instance"}
  std::string cpu_metric{};     // Prometheus; empty: instance:node_cpu:ratio
  std::string memory_metric{};  // Prometheus; empty: instance:node_memory_utilisation:ratio

  friend bool operator==(const ProviderSpec&, const ProviderSpec&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const ProviderSpec& s) {
    return H::combine(std::move(h), s.type, s.address, s.token, s.insecure_skip_verify,
                      s.token_file, s.ca_file, s.client_cert_file, s.client_key_file, s.headers,
                      s.node_labels, s.cpu_metric, s.memory_metric);
  }
};

// A remote load watcher and how to reach a secured one (plugin args watcherAddress,
// watcherCAFile, watcherTokenFile; trimaranctl --watcher, --watcher-ca-file,
// --watcher-token-file).
struct RemoteSpec {
  std::string address{};     // http://, https://, grpc://, grpcs:// or dns:///
  std::string ca_file{};     // https:// and grpcs:// only: PEM CA bundle (default: system's)
  std::string token_file{};  // bearer token sent with every call, re-read when it rotates

  friend bool operator==(const RemoteSpec&, const RemoteSpec&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const RemoteSpec& s) {
    return H::combine(std::move(h), s.address, s.ca_file, s.token_file);
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
  // A Client for a remote load watcher with TLS settings and a token. Pools that only
  // know plain addresses (test fakes) forward a spec without CA file or token to
  // Remote(address) and refuse the others with Unimplemented.
  virtual absl::StatusOr<Client*> ConnectRemote(const RemoteSpec& remote) {
    if (!remote.ca_file.empty() || !remote.token_file.empty()) {
      return absl::UnimplementedError("this source pool has no secured remote watchers");
    }
    return Remote(remote.address);
  }
};

}  // namespace trimaran::lw
