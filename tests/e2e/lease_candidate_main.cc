// A leader-election candidate process for the e2e tests:
//   lease_candidate KUBECONFIG IDENTITY
// campaigns for Lease kube-system/trimaran-e2e with kube-scheduler's defaults
// (15 s / 10 s / 2 s) and prints "leading" / "stopped leading"; runs until killed.
#include <csignal>
#include <cstdio>
#include <thread>

#include "kube/leader_elector.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s KUBECONFIG IDENTITY\n", argv[0]);
    return 2;
  }
  auto config = trimaran::kube::LoadKubeconfig(argv[1]);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  auto client = trimaran::kube::RestClient::Create(*config, trimaran::RealClock::Get());
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 1;
  }
  trimaran::kube::LeaderElectionConfig le;
  le.lease_name = "trimaran-e2e";
  le.identity = argv[2];
  le.on_started_leading = [](std::stop_token) {
    std::printf("leading\n");
    std::fflush(stdout);
  };
  le.on_stopped_leading = [] {
    std::printf("stopped leading\n");
    std::fflush(stdout);
  };
  trimaran::kube::LeaderElector elector(**client, trimaran::RealClock::Get(), le);
  std::stop_source never;
  while (true) elector.Run(never.get_token());
}
