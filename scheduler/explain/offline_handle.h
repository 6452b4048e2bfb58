#pragma once
// OfflineHandle: the Handle the offline tools (trimaranctl score through the Explainer)
// build frameworks with. Plugins see the tool's snapshot,
// its clock (a ManualClock, usually), an in-memory apiserver (kube::testing::FakeClient;
// score plugins never call it, binders write to it), an event recorder that drops
// events, a sequential parallelizer (reports are deterministic), the tool's load
// watcher clients and its namespaces, services and controllers.
//
// Thread-safety: as Handle; the snapshot is the owner's and changes between cycles.
// Ownership: everything passed in must outlive the handle.

#include "common/clock.h"
#include "kube/testing/fake_client.h"
#include "loadwatcher/client.h"
#include "loadwatcher/source_pool.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/stats_scopes.h"
#include "scheduler/runtime/inline_parallelizer.h"

namespace trimaran::sched::explain {

class OfflineHandle final : public Handle {
 public:
  OfflineHandle(const SharedLister& snapshot, const StatsScopes& scopes, const Clock& clock,
                lw::Client* load_watcher, lw::SourcePool* sources, const ObjectLister& objects,
                const StorageLister& storage);

  const SharedLister& snapshot_lister() const override { return snapshot_; }
  kube::Client& client() override { return client_; }
  EventRecorder& event_recorder() override { return recorder_; }
  const StatsScopes& stats_scopes() const override { return scopes_; }
  Parallelizer& parallelizer() override { return parallelizer_; }
  const Clock& clock() const override { return clock_; }
  lw::Client* load_watcher() override { return load_watcher_; }
  lw::SourcePool* load_watcher_sources() override { return sources_; }
  const ObjectLister& object_lister() const override { return objects_; }
  const StorageLister& storage_lister() const override { return storage_; }

  // The in-memory apiserver (what a binder wrote).
  kube::testing::FakeClient& api() { return client_; }

 private:
  class DroppingEventRecorder final : public EventRecorder {
   public:
    void Eventf(const kube::Pod&, const kube::Pod*, EventType, absl::string_view, absl::string_view,
                absl::string_view) override {}
  };

  const SharedLister& snapshot_;
  const StatsScopes& scopes_;
  const Clock& clock_;
  lw::Client* load_watcher_;
  lw::SourcePool* sources_;
  const ObjectLister& objects_;
  const StorageLister& storage_;
  kube::testing::FakeClient client_;
  DroppingEventRecorder recorder_;
  InlineParallelizer parallelizer_{1};
};

}  // namespace trimaran::sched::explain
