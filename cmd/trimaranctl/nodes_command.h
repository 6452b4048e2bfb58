#pragma once
// `trimaranctl nodes`: flags, the clients, and the one-shot outputs (docs/trimaranctl.md
// "nodes"). The view itself is the dashboard/ library: its options (ViewOptions), the
// sources (ClusterSource, ApiClusterSource, InformerClusterSource), the model, the
// documents, and the live terminal view (dashboard/terminal/live_view.h).
//
//   ParseNodesFlags   the command line, after the defaults file (~/.trimaran-viewer:
//                     `flag-name=value` lines, `#` comments), which the command line
//                     overrides.
//   RunNodesOnce      one fetch printed as a table, JSON or CSV.
//
// Errors: usage errors are InvalidArgument naming the flag; a failed node or pod list
// is the client's error (the command fails); a failed load-watcher read is NOT an
// error: usage is shown as unavailable (never as idle) with the reason.
//
// Thread-safety: the functions are reentrant.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cmd/trimaranctl/flag_args.h"
#include "common/http/transport.h"
#include "dashboard/cluster_source.h"
#include "dashboard/view_options.h"
#include "loadwatcher/client.h"
#include "loadwatcher/connect.h"

namespace trimaran::cmd::trimaranctl::nodes {

struct NodesFlags {
  std::string output;  // "" (live view), "table", "json" or "csv"
  std::string kubeconfig;
  std::string context;
  std::string master;
  std::string watcher;             // "http://127.0.0.1:2020" (REST) or "grpc://host:port"; "" none
  std::string watcher_ca_file;     // https:// and grpcs://: the CA verifying the watcher
  std::string watcher_token_file;  // the watcher's bearer token (--token-file on its side)
  dashboard::ViewOptions view;     // every other flag
  // --v: log verbosity on stderr. -1 (default): warnings only with -o, nothing in the
  // live view (a log line would tear the screen; errors show on its footer).
  int verbosity = -1;
  bool help = false;
};

// The text of the defaults file, ~/.trimaran-viewer ("" when there is none).
std::string ReadViewerDefaults();

// `args` are the arguments after "nodes"; `defaults_file` the text of the defaults file
// ("" when there is none).
absl::StatusOr<NodesFlags> ParseNodesFlags(const std::vector<std::string>& args,
                                           const std::string& defaults_file);

// The pieces of ParseNodesFlags, for `trimaranctl dashboard`, which takes every `nodes`
// flag but -o: how they are spelled, one flag applied (`flag` as declared, "--output"),
// and the defaults file applied (errors name its line).
const FlagSyntax& NodesFlagSyntax();
absl::Status ApplyNodesFlag(NodesFlags& flags, const std::string& flag, const std::string& value);
absl::Status ApplyNodesDefaults(NodesFlags& flags, const std::string& defaults_file);

// The one-shot command over `source`: prints the table, JSON or CSV to `out`. Exit code.
int RunNodesOnce(dashboard::ClusterSource& source, const NodesFlags& flags, absl::Time now,
                 std::string& out, std::string& err);

// The load-watcher client of --watcher (loadwatcher/connect.h).
using WatcherClient = lw::ConnectedClient;
inline absl::StatusOr<WatcherClient> MakeWatcherClient(const std::string& address,
                                                       const std::string& ca_file = "",
                                                       const std::string& token_file = "") {
  return lw::ConnectWatcher(address, ca_file, token_file);
}

// The whole `trimaranctl nodes` command: `args` after "nodes". Builds the real clients
// (kubeconfig / in-cluster as kube::LoadRestConfig, the load-watcher client from
// --watcher) and runs the one-shot output or the live view (dashboard/terminal/live_view.h).
int RunNodesCommand(const std::vector<std::string>& args, std::string& out, std::string& err);

// The `trimaranctl nodes --help` text.
std::string NodesHelpText();

}  // namespace trimaran::cmd::trimaranctl::nodes
