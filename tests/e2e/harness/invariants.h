#pragma once
// The invariants every fault-injection scenario asserts, read back from the real
// apiserver (and the fault proxies the schedulers talk through) after the fault:
//
//   0 pods lost          every pod of the audited namespace is bound (spec.nodeName set);
//   0 pods bound twice   at most one Binding POST per pod answered 201 by the apiserver,
//                        counted at the fault proxies every scheduler talks through (the
//                        upstream's status, so a 201 the proxy replaced by a 504 counts);
//   0 nodes overcommitted  on every node, the sum of the requests of its non-terminal
//                          pods in every namespace (kube::ComputePodRequests) fits its
//                          allocatable, for every resource any of them requests (cpu,
//                          memory, ephemeral-storage, extended and hugepages-*) and the
//                          pod count;
//   no failure on a bound pod  no bound pod of the namespace carries PodScheduled=False.
//
//   TRIMARAN_ASSERT_OK_AND_ASSIGN(
//       ClusterAudit audit, AuditCluster(cluster->client(), "default", {proxy.get()}));
//   EXPECT_EQ(audit.Violations(1000), "");
//
// Thread-safety: plain functions and data.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/fault_proxy.h"

namespace trimaran::e2e {

struct ClusterAudit {
  int pods = 0;  // of the audited namespace
  int bound = 0;
  std::vector<std::string> unbound;             // pod names
  std::vector<std::string> overcommitted;       // "node: cpu 4100m > 4000m"
  std::vector<std::string> bound_with_failure;  // bound pods with PodScheduled=False
  // "ns/pod" -> Binding POSTs the apiserver answered 201, at the audited proxies (any
  // namespace).
  std::map<std::string, int> bindings;
  std::map<std::string, int> scheduled_events;   // pod -> "Scheduled" events (informative)
  std::map<std::string, int> failed_scheduling;  // pod -> "FailedScheduling" events
  // Cpu requested by the live bound pods of every namespace, and the nodes' allocatable.
  int64_t requested_milli_cpu = 0;
  int64_t allocatable_milli_cpu = 0;

  // requested / allocatable cpu (0 without nodes): how full the scenario ran.
  double CpuRequestedFraction() const {
    return allocatable_milli_cpu > 0
               ? static_cast<double>(requested_milli_cpu) / allocatable_milli_cpu
               : 0;
  }

  // One line per violated invariant ("" when all hold) for `expected_pods` pods.
  std::string Violations(int expected_pods) const;
};

// "ns/pod" -> Binding POSTs (kBindingPathRegex) answered 201 by the apiserver
// (RequestRecord::upstream_status) through `proxies`, from each proxy's request log.
std::map<std::string, int> CountBindings(const std::vector<const FaultProxy*>& proxies);

// Reads the namespace's pods and events, every node and every pod of the cluster, and
// the Bindings counted at `proxies` (every proxy a scheduler under test talks through).
absl::StatusOr<ClusterAudit> AuditCluster(kube::RestClient& client, const std::string& ns,
                                          const std::vector<const FaultProxy*>& proxies);

}  // namespace trimaran::e2e
