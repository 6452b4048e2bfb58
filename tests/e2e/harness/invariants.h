#pragma once
// The invariants every fault-injection scenario asserts, read back from the real
// apiserver after the fault:
//
//   0 pods lost          every pod of the namespace is bound (spec.nodeName set);
//   0 pods bound twice   at most one "Scheduled" event per pod;
//   0 nodes overcommitted  on every node, the sum of its live pods' requests
//                          (kube::ComputePodRequests) fits its allocatable cpu, memory
//                          and pod count;
//   no failure on a bound pod  no bound pod carries PodScheduled=False.
//
//   TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster->client(), "default"));
//   EXPECT_EQ(audit.Violations(1000), "");
//
// Thread-safety: plain functions and data.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/rest_client.h"

namespace trimaran::e2e {

struct ClusterAudit {
  int pods = 0;
  int bound = 0;
  std::vector<std::string> unbound;              // pod names
  std::vector<std::string> overcommitted;        // "node: cpu 4100m > 4000m"
  std::vector<std::string> bound_with_failure;   // bound pods with PodScheduled=False
  std::map<std::string, int> scheduled_events;   // pod -> "Scheduled" events
  std::map<std::string, int> failed_scheduling;  // pod -> "FailedScheduling" events

  // One line per violated invariant ("" when all hold) for `expected_pods` pods.
  std::string Violations(int expected_pods) const;
};

// Reads the namespace's pods and events and every node.
absl::StatusOr<ClusterAudit> AuditCluster(kube::RestClient& client, const std::string& ns);

}  // namespace trimaran::e2e
