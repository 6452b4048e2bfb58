#pragma once
// `trimaranctl nodes`: flags, fetching the inputs, and the one-shot outputs
// (docs/trimaranctl.md "nodes"). The live terminal view is nodes_terminal.h.
//
//   ClusterSource     where nodes, pods and the load-watcher snapshot come from: an
//                     interface; ApiClusterSource lists them from a kube::Client (paged)
//                     and reads a loadwatcher::Client (REST /watcher or gRPC), so tests
//                     drive it with kube::testing::FakeClient and FakeLoadWatcherClient.
//   ParseNodesFlags   the command line, after the defaults file (~/.trimaran-viewer:
//                     `flag-name=value` lines, `#` comments), which the command line
//                     overrides.
//   BuildView         one fetch turned into a ClusterView (nodes_model.h).
//
// Errors: usage errors are InvalidArgument naming the flag; a failed node or pod list
// is the client's error (the command fails); a failed load-watcher read is NOT an
// error: usage is shown as unavailable (never as idle) with the reason.
//
// Thread-safety: ApiClusterSource is safe for concurrent Fetch calls when its clients
// are (kube::Client and loadwatcher::Client are); the functions are reentrant.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cmd/trimaranctl/nodes_layout.h"
#include "cmd/trimaranctl/nodes_model.h"
#include "cmd/trimaranctl/nodes_price_table.h"
#include "common/http/transport.h"
#include "kube/client.h"
#include "loadwatcher/client.h"

namespace trimaran::cmd::trimaranctl::nodes {

struct NodesFlags {
  std::string output;  // "" (live view), "table", "json" or "csv"
  std::string kubeconfig;
  std::string context;
  std::string master;
  std::string watcher;             // "http://127.0.0.1:2020" (REST) or "grpc://host:port"; "" none
  std::string watcher_ca_file;     // https:// and grpcs://: the CA verifying the watcher
  std::string watcher_token_file;  // the watcher's bearer token (--token-file on its side)
  std::string window = "15m";
  std::string node_selector;
  std::vector<std::string> resources = {"cpu"};
  std::vector<std::string> extra_labels;
  SortSpec sort;
  std::string group_by;
  std::string price_file;
  std::optional<double> spot_discount_percent;
  bool disable_pricing = false;
  std::string style = "#04B575,#FFFF00,#FF0000";
  bool no_color = false;
  double hot_threshold = 80;
  std::map<std::string, double, std::less<>> target_percent;  // --target-utilization
  std::string scheduler_config;  // read TargetLoadPacking's targets from it
  absl::Duration refresh = absl::Seconds(2);
  absl::Duration stale_after = absl::Minutes(2);
  int bar_width = 20;
  // --v: log verbosity on stderr. -1 (default): warnings only with -o, nothing in the
  // live view (a log line would tear the screen; errors show on its footer).
  int verbosity = -1;
  bool help = false;
};

// `args` are the arguments after "nodes"; `defaults_file` the text of the defaults file
// ("" when there is none).
absl::StatusOr<NodesFlags> ParseNodesFlags(const std::vector<std::string>& args,
                                           const std::string& defaults_file);

// TargetLoadPacking's targetUtilization per resource ("cpu" and, when configured,
// "memory") from a KubeSchedulerConfiguration file: the first profile that enables the
// plugin in its score set. Empty map when no profile does.
absl::StatusOr<std::map<std::string, double, std::less<>>> TargetsFromSchedulerConfig(
    const std::string& path);

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

// Model and layout options from the flags (prices loaded by the caller).
ModelOptions MakeModelOptions(const NodesFlags& flags, const PriceTable* prices, absl::Time now);
absl::StatusOr<LayoutOptions> MakeLayoutOptions(const NodesFlags& flags);

// Fetch + BuildClusterView.
absl::StatusOr<ClusterView> BuildView(ClusterSource& source, const NodesFlags& flags,
                                      const PriceTable& prices, absl::Time now);

// The built-in prices, the price file and the spot discount of `flags`.
absl::StatusOr<PriceTable> LoadPrices(const NodesFlags& flags);

// The one-shot command over `source`: prints the table or JSON to `out`. Exit code.
int RunNodesOnce(ClusterSource& source, const NodesFlags& flags, absl::Time now, std::string& out,
                 std::string& err);

// The load-watcher client of --watcher ("" none: client null): REST for http://host:port,
// https://host:port or a bare host:port, gRPC for grpc://host:port, TLS gRPC for
// grpcs://host:port; `ca_file` (--watcher-ca-file) verifies a TLS watcher, `token_file`
// (--watcher-token-file) is sent as a bearer token. The transport (REST) is owned here.
struct WatcherClient {
  std::shared_ptr<http::HttpTransport> transport;
  std::unique_ptr<lw::Client> client;
};
absl::StatusOr<WatcherClient> MakeWatcherClient(const std::string& address,
                                                const std::string& ca_file = "",
                                                const std::string& token_file = "");

// The whole `trimaranctl nodes` command: `args` after "nodes". Builds the real clients
// (kubeconfig / in-cluster as kube::LoadRestConfig, the load-watcher client from
// --watcher) and runs the one-shot output or the live view (nodes_terminal.h).
int RunNodesCommand(const std::vector<std::string>& args, std::string& out, std::string& err);

// The `trimaranctl nodes --help` text.
std::string NodesHelpText();

}  // namespace trimaran::cmd::trimaranctl::nodes
