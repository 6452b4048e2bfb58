#pragma once
// `trimaranctl dashboard`: the web dashboard (docs/trimaranctl.md "dashboard"). Serves
// DashboardService (dashboard/web/service.h) on --listen (default 127.0.0.1:8088) over the
// same sources as `trimaranctl nodes` (kubeconfig, --watcher, --price-file,
// --node-selector, ...: every `nodes` flag but -o), plus the scheduler's recent
// decisions with --scheduler. Runs until SIGINT or SIGTERM. Prints the URL with a
// random per-start token (http://127.0.0.1:8088/?token=...) that every request needs
// (dashboard/web/guard.h); the kubeconfig's bearer token is never sent over http://
// (kube/plain_http.h).
//
//   --listen HOST:PORT               where to serve (127.0.0.1 by default: the page
//                                    shows the cluster's nodes; bind wider on purpose)
//   --allowed-hosts A,B              Host names accepted besides localhost, loopback and
//                                    the listen address (dashboard/web/guard.h)
//   --scheduler https://HOST:PORT    the scheduler's secure admin port (/debug/decisions)
//   --scheduler-ca-file PATH         CA of its serving certificate (else system CAs)
//   --scheduler-token-file PATH      bearer token (re-read as it rotates); else the
//                                    kubeconfig's credentials (token file, token, exec
//                                    plugin) or client certificate
//   --scheduler-insecure-skip-tls-verify   only for a self-signed test scheduler
//   --history N                      samples kept per node for the charts (default 120)
// Defaults that differ from `nodes`: --resources cpu,memory and --refresh 5s.
//
// Thread-safety: ParseDashboardFlags is reentrant; RunDashboardCommand is meant to be
// called once per process (it blocks SIGINT/SIGTERM to wait for them).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cmd/trimaranctl/nodes_command.h"

namespace trimaran::cmd::trimaranctl::nodes {

struct DashboardFlags {
  NodesFlags nodes;
  std::string listen = "127.0.0.1:8088";
  std::vector<std::string> allowed_hosts;
  std::string scheduler;
  std::string scheduler_ca_file;
  std::string scheduler_token_file;
  bool scheduler_insecure = false;
  int history = 120;
};

// `args` after "dashboard"; `defaults_file` as for ParseNodesFlags.
absl::StatusOr<DashboardFlags> ParseDashboardFlags(const std::vector<std::string>& args,
                                                   const std::string& defaults_file);

// Splits "HOST:PORT" ("[::1]:8088" for IPv6). InvalidArgument naming --listen.
absl::Status ParseListen(const std::string& listen, std::string& host, int& port);

int RunDashboardCommand(const std::vector<std::string>& args, std::string& out, std::string& err);

std::string DashboardHelpText();

}  // namespace trimaran::cmd::trimaranctl::nodes
