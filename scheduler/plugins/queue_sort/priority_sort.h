#pragma once
// PrioritySort: the default QueueSort plugin (upstream's queuesort.PrioritySort).
// activeQ pops pods with a higher spec.priority first; among equal priorities, the pod
// whose QueuedPodInfo::timestamp is earlier (queued or re-queued first) goes first.
//
// Thread-safety: stateless; Less is safe for concurrent use.
// Ownership: owns nothing; the queue owns the QueuedPodInfos it compares.

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class PrioritySort final : public QueueSortPlugin {
 public:
  static constexpr absl::string_view kName = "PrioritySort";

  // Factory for Registry::Register. The plugin takes no args (any given are ignored).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  absl::string_view Name() const override { return kName; }

  // Higher kube::PodPriority first; then the earlier timestamp. A strict weak ordering
  // (pods with equal priority and timestamp are equivalent).
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
};

}  // namespace trimaran::sched::plugins
