#pragma once
// SchedulerApp: the trimaran-scheduler daemon (issue 5; spec kube-scheduler.md §1, §5–§8),
// everything main() does after parsing flags:
//
//   LoadEffectiveConfig  --config file (or the built-in default: one profile "trimaran")
//                        + flag overrides + defaults + validation of every field and of
//                        every plugin's args (plugins::InTreeRegistry()). Every error at once.
//   Create               in named steps: clients (main: clientConnection qps/burst; events
//                        and leader election each get their own client, as kube-scheduler
//                        does, so they never eat the binding budget), the profiles (one in
//                        extender mode), the Scheduler (one Framework per profile) with the
//                        load-watcher source pool for load-aware plugins and the decisions
//                        ring, the informers (sched::AddAllEventHandlers,
//                        scheduler/event_handlers.h) and their stats, health checks, the
//                        leader elector, the admin server (secure port, self-signed
//                        certificate when none is given), the extender's server.
//   Run                  start the servers (/healthz /livez /readyz /metrics /configz);
//                        start the informers and wait for their sync (readyz "informer-sync" fails
//                        until then); then schedule — directly, or only while holding the
//                        Lease when leaderElection.leaderElect is set. Returns the exit code.
//   RequestStop          (SIGTERM/SIGINT) readyz "shutdown" fails, the scheduler stops
//                        taking pods and finishes its in-flight bindings, the Lease is
//                        released (holderIdentity ""), informers and server stop, Run
//                        returns 0.
//   Leadership lost      (renewals failed for renewDeadline) Run returns 1 at once, as
//                        kube-scheduler exits: a replica that may no longer hold the Lease
//                        must not bind; the container restarts and campaigns again.
//
// Metrics on /metrics (docs/metrics.md lists every family): Create is the one place that
// picks prefixes; every component names its families relative to the scope it gets.
// kube-scheduler's names from "scheduler_" (scheduler_schedule_attempts_total,
// scheduler_pending_pods, ... spec §8.2), client-go's from "rest_client_"
// (rest_client_requests_total{code,method,host}, ...),
// leader_election_master_status{name}, and our own from "trimaran_" (events, cache,
// plugin fallbacks, and the "trimaran_informer_" and "trimaran_loadwatcher_" families).
//
// Thread-safety: Create and Run from the main thread; RequestStop from any thread
// (including a signal-handling thread), any number of times.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cmd/scheduler/options.h"
#include "common/stats/scope.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/profile_config.h"

namespace trimaran::cmd {

// The scheduler name of the built-in configuration used when no --config is given: a
// second scheduler must never claim the default scheduler's pods, so unlike
// kube-scheduler (whose default profile is "default-scheduler") ours is "trimaran", and
// its Lease is kube-system/trimaran-scheduler instead of kube-scheduler's.
inline constexpr char kDefaultProfileName[] = "trimaran";
inline constexpr char kDefaultLeaseName[] = "trimaran-scheduler";

// The effective configuration: --config (or the built-in default), flag overrides,
// defaults, validation. InvalidArgument listing every error, one per line with its field
// path (the caller prints it and exits 1).
absl::StatusOr<sched::config::SchedulerConfig> LoadEffectiveConfig(const SchedulerOptions& options);

// --write-config-to: writes the effective configuration as v1 YAML ("-" or
// "/dev/stdout": standard output).
absl::Status WriteEffectiveConfig(const sched::config::SchedulerConfig& config,
                                  const std::string& path);

// --extender: the profile to serve, `name` or (empty) the only one. InvalidArgument
// listing the profiles otherwise.
absl::StatusOr<sched::ProfileConfig> SelectExtenderProfile(
    std::vector<sched::ProfileConfig> profiles, const std::string& name);

class SchedulerApp {
 public:
  // Builds everything (nothing is started). Errors: unusable kubeconfig, TLS files,
  // plugin construction (e.g. an unreachable watcherAddress scheme), ...
  static absl::StatusOr<std::unique_ptr<SchedulerApp>> Create(
      const SchedulerOptions& options, sched::config::SchedulerConfig config);
  ~SchedulerApp();
  SchedulerApp(const SchedulerApp&) = delete;
  SchedulerApp& operator=(const SchedulerApp&) = delete;

  // Runs until RequestStop (returns 0) or a fatal error / lost leadership (returns 1).
  int Run();
  void RequestStop();

 private:
  // Everything the daemon owns, with the steps Create and Run are made of (app.cc).
  struct State;
  explicit SchedulerApp(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace trimaran::cmd
