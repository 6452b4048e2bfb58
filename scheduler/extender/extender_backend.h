#pragma once
// ExtenderBackend: what the extender's HTTP handlers (extender_service.h) ask of the
// scheduler. The real one is FrameworkBackend (a profile's plugins on the daemon's
// cache); tests use fakes.
//
// Thread-safety: implementations must be safe for concurrent calls (the HTTP server's
// workers call them in parallel).

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "scheduler/extender/extender_types.h"

namespace trimaran::sched::extender {

// A node kube-scheduler asks about: its name, and the full object when kube-scheduler
// sent one (nodeCacheCapable false); null when it sent names only.
struct CandidateNode {
  std::string name;
  std::shared_ptr<const kube::Node> object;
};

// The verdict of /filter for every candidate: each name lands in exactly one of these.
struct FilterVerdicts {
  std::vector<std::string> feasible;  // in candidate order
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> failed_and_unresolvable;
};

class ExtenderBackend {
 public:
  virtual ~ExtenderBackend() = default;
  // PreFilter + Filter of the profile for `pod` on `nodes`. An error (a plugin error,
  // no snapshot) fails the whole request; rejections are verdicts.
  virtual absl::StatusOr<FilterVerdicts> Filter(const kube::Pod& pod,
                                                std::span<const CandidateNode> nodes) = 0;
  // PreScore + Score (+ NormalizeScore, weights) of the profile, mapped to
  // [kMinExtenderPriority, kMaxExtenderPriority]; one entry per node, in node order.
  virtual absl::StatusOr<std::vector<HostPriority>> Prioritize(
      const kube::Pod& pod, std::span<const CandidateNode> nodes) = 0;
  // Creates the Binding. Unimplemented when binding is off.
  virtual absl::Status Bind(const ExtenderBindingArgs& args) = 0;
};

}  // namespace trimaran::sched::extender
