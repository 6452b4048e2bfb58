#pragma once
// SignalFx provider: per-node CPU and memory utilisation from the SignalFx REST API, as
// paypal/load-watcher's signalfx provider computes it (spec trimaran-and-load-watcher.md
// §5.6). For each metric, sf_metric:"cpu.utilization" (CPU) and
// sf_metric:"memory.utilization" (Memory):
//
//   query = host:*<suffix> AND cluster:<cluster> AND <metric>
//   GET <address>/v1/timeserieswindow?query=<q>&startMs=<start*1000>&endMs=<end*1000>
//       &resolution=60000    -> {"data": {"<tsId>": [[tsMs, value], ...]}, "errors": []}
//   GET <address>/v2/metrictimeseries?query=<q>&limit=10000
//                            -> {"results": [{"id": "<tsId>", "dimensions": {"host": ..}}]}
//
// The two answers are joined on the time-series id; the node name is the `host`
// dimension up to its first "." ("alpha.dev.k8s.com" -> "alpha"), and the value is the
// arithmetic mean of every point in the window (SignalFx utilisations are already
// percentages). Each node gets {name = the sf_metric:"..." term, type CPU|Memory,
// operator AVG, rollup ""}; there is no STD. Every request carries X-SF-Token and
// Content-Type: application/json.
//
// Differences from upstream (deliberate):
//   - An empty cluster name leaves the cluster term out of the query; upstream sends
//     "cluster:" verbatim.
//   - Several series of one host (other dimensions differ) are pooled: the mean is over
//     all their points. Upstream keeps whichever series comes last.
//   - One metric failing (transport error, non-2xx, bad JSON) does not discard the other:
//     its error goes to HostsMetrics::partial_errors. Only when every metric fails does
//     the fetch fail. Series that cannot be joined or have no points are skipped and
//     reported as one partial error per metric (upstream only logs them).
//   - FetchHostMetrics answers from the all-hosts fetch (upstream: the last point of the
//     first series).
// Metadata beyond `metadata_limit` series is not paged (as upstream).
//
// Thread-safety: safe for concurrent use (const state; the transport is thread-safe).
// Ownership: borrows the transport, which must outlive the provider.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/http/transport.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/metrics_provider.h"

namespace trimaran::providers::signalfx {

inline constexpr absl::string_view kDefaultAddress = "https://api.signalfx.com";
inline constexpr absl::string_view kCpuMetric = "sf_metric:\"cpu.utilization\"";
inline constexpr absl::string_view kMemoryMetric = "sf_metric:\"memory.utilization\"";

struct Options {
  // Base URL (scheme://host[:port]); empty means kDefaultAddress. A trailing "/" is
  // ignored. (METRICS_PROVIDER_ADDRESS)
  std::string address{};
  // API access token, sent as X-SF-Token. Mandatory. (METRICS_PROVIDER_TOKEN)
  std::string token{};
  // Host filter: host:*<suffix>. May be empty. (SIGNALFX_HOST_NAME_SUFFIX)
  std::string host_name_suffix{};
  // Cluster filter: cluster:<name>; empty leaves it out. (SIGNALFX_CLUSTER_NAME)
  std::string cluster_name{};
  bool insecure_skip_verify = false;           // (INSECURE_SKIP_VERIFY)
  absl::Duration timeout = absl::Seconds(55);  // per request
  int64_t resolution_ms = 60000;
  int64_t metadata_limit = 10000;
};

// The SignalFx search query for `metric` (kCpuMetric, kMemoryMetric) under `options`.
std::string BuildQuery(const Options& options, absl::string_view metric);

// The node name of a host dimension: everything before the first ".".
absl::string_view NodeNameFromHost(absl::string_view host);

class SignalFxProvider final : public lw::MetricsProvider {
 public:
  // InvalidArgument when the token is empty (upstream exits) or the address is not
  // http(s).
  static absl::StatusOr<std::unique_ptr<SignalFxProvider>> Create(http::HttpTransport& transport,
                                                                  Options options);

  std::string Name() const override;
  // The host's metrics from FetchAllHostsMetrics; NotFound when it has none.
  absl::StatusOr<std::vector<lw::Metric>> FetchHostMetrics(absl::string_view host,
                                                           const lw::Window& window) override;
  absl::StatusOr<lw::HostsMetrics> FetchAllHostsMetrics(const lw::Window& window) override;
  // HEAD <address>; 2xx is healthy.
  absl::Status Health() override;

 private:
  SignalFxProvider(http::HttpTransport& transport, Options options);

  // GET `url` and return the 2xx body; errors are annotated with `what`.
  absl::StatusOr<std::string> Get(const std::string& url, absl::string_view what) const;
  http::HttpRequest NewRequest(std::string method, std::string url) const;

  http::HttpTransport& transport_;
  const Options options_;
};

}  // namespace trimaran::providers::signalfx
