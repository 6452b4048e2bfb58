#pragma once
// The dashboard `load-watcher --dashboard` serves at /dashboard/ on its REST port:
// `trimaranctl dashboard`'s defaults (cpu and memory, refresh 5 s, the built-in prices)
// over informers of nodes and pods and the daemon's in-process watcher client; it does
// not read the scheduler's decisions (the page says how to get them).
//
// Thread-safety: MakeLoadWatcherDashboard is called once at start-up; the service is
// safe for concurrent use (service.h).
// Ownership: `source` receives the informer source the service reads; it must outlive
// the service. The kube client and the watcher client are borrowed.

#include <memory>

#include "absl/status/statusor.h"
#include "dashboard/informer_source.h"
#include "dashboard/web/guard.h"
#include "dashboard/web/service.h"
#include "kube/client.h"
#include "loadwatcher/client.h"

namespace trimaran::dashboard::web {

absl::StatusOr<std::unique_ptr<DashboardService>> MakeLoadWatcherDashboard(
    kube::Client& kube, lw::Client* watcher, DashboardAccess access,
    std::unique_ptr<InformerClusterSource>& source);

}  // namespace trimaran::dashboard::web
