#pragma once
// HealthChecks: the registry of named health checks behind /healthz, /livez and /readyz
// (kube-apiserver's healthz package semantics, as kube-scheduler serves them).
//
// Each check has a name ("ping", "leaderElection", "sched-handler-sync", "shutdown")
// and the set of endpoints it belongs to. A new registry already holds "ping" (always
// OK) on all three endpoints, as the apiserver library installs it. kube-scheduler's
// layout, for whoever wires the daemon:
//   healthz: ping, leaderElection (when leader election is on)
//   livez:   ping
//   readyz:  ping, leaderElection, shutdown, sched-handler-sync
// Checks run in registration order; a check returns OkStatus when healthy, otherwise a
// status whose message is the reason (shown by /<endpoint>/<check> and logged, but
// "withheld" from the aggregate endpoints, as upstream).
//
// SettableCheck is a ready-made check whose status is set from elsewhere (e.g.
// "sched-handler-sync" starts as Unavailable("waiting for handlers to sync") and the
// scheduler sets it OK once its informers have synced).
//
// Thread-safety: all methods are safe for concurrent use; Add may be called while the
// server is serving. Checks are called without the registry lock held and may run
// concurrently from several requests, so they must be thread-safe and quick (they run
// on the HTTP worker threads). Ownership: the registry owns copies of the functions.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trimaran::sched {

using HealthCheckFn = std::function<absl::Status()>;

// Bit set of endpoints.
enum HealthEndpoint : uint32_t {
  kHealthz = 1u << 0,
  kLivez = 1u << 1,
  kReadyz = 1u << 2,
  kAllHealthEndpoints = kHealthz | kLivez | kReadyz,
};

// "healthz", "livez", "readyz" for a single endpoint bit.
absl::string_view HealthEndpointName(HealthEndpoint endpoint);

class HealthChecks {
 public:
  struct Result {
    std::string name{};
    absl::Status status{};
    bool excluded = false;  // skipped by ?exclude= (status is then OK)
  };

  HealthChecks();  // with "ping"
  HealthChecks(const HealthChecks&) = delete;
  HealthChecks& operator=(const HealthChecks&) = delete;

  // Registers `check` on `endpoints` (a HealthEndpoint bit set). InvalidArgument for an
  // empty name, a name containing '/', no endpoints or no function; AlreadyExists for a
  // name registered before.
  absl::Status Add(std::string name, uint32_t endpoints, HealthCheckFn check);

  // Runs the checks of `endpoint` in order, skipping those named in `exclude`.
  std::vector<Result> Run(HealthEndpoint endpoint, const std::set<std::string>& exclude) const;

  // Runs one check of `endpoint`; nullopt when it has no check of that name.
  std::optional<absl::Status> RunOne(HealthEndpoint endpoint, absl::string_view name) const;

  // The check names of `endpoint`, in order.
  std::vector<std::string> Names(HealthEndpoint endpoint) const;

 private:
  struct Entry {
    std::string name;
    uint32_t endpoints;
    HealthCheckFn check;
  };
  std::vector<Entry> Snapshot(HealthEndpoint endpoint) const;

  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

// A check whose result is set by its owner. Starts with `initial`.
class SettableCheck {
 public:
  explicit SettableCheck(absl::Status initial) : status_(std::move(initial)) {}
  void Set(absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Get() const ABSL_LOCKS_EXCLUDED(mu_);
  // A HealthCheckFn reading this object, which must outlive the registry's use of it.
  HealthCheckFn AsCheck() const {
    return [this] { return Get(); };
  }

 private:
  mutable absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched
