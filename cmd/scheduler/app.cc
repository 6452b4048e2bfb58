#include "cmd/scheduler/app.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/http/self_signed.h"
#include "common/logging.h"
#include "common/private_dir.h"
#include "common/stats/process_metrics.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/status_macros.h"
#include "kube/informer.h"
#include "kube/informer_stats.h"
#include "kube/leader_elector.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "providers/provider_source_pool.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/config/write.h"
#include "scheduler/decisions/decision_ring.h"
#include "scheduler/decisions/decisions_endpoint.h"
#include "scheduler/event_handlers.h"
#include "scheduler/event_recorder.h"
#include "scheduler/extender/client_names.h"
#include "scheduler/extender/extender_service.h"
#include "scheduler/extender/framework_backend.h"
#include "scheduler/framework/stats_scopes.h"
#include "scheduler/metrics_availability_events.h"
#include "scheduler/plugins/coscheduling/coscheduling.h"
#include "scheduler/plugins/coscheduling/pod_group_status.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/server/admin_server.h"
#include "scheduler/server/delegating_authorizer.h"
#include "scheduler/server/health_checks.h"

namespace trimaran::cmd {

namespace config = sched::config;

// ---- Configuration ----

absl::StatusOr<config::SchedulerConfig> LoadEffectiveConfig(const SchedulerOptions& options) {
  config::SchedulerConfig cfg;
  if (!options.config_file.empty()) {
    TRIMARAN_ASSIGN_OR_RETURN(cfg, config::LoadConfigFile(options.config_file));
  } else {
    // The built-in default: kube-scheduler's defaults, but under our own name and Lease
    // (see app.h).
    config::Profile profile;
    profile.scheduler_name = kDefaultProfileName;
    cfg.profiles.push_back(std::move(profile));
    cfg.leader_election.resource_name = kDefaultLeaseName;
    config::SetDefaults(cfg);
  }
  ApplyFlagOverrides(options, cfg);
  TRIMARAN_RETURN_IF_ERROR(config::Validate(cfg, sched::plugins::InTreeRegistry()));
  const config::LeaderElection& le = cfg.leader_election;
  if (le.leader_elect && le.resource_name == "kube-scheduler" &&
      le.resource_namespace == "kube-system") {
    Log(Component::kConfig)
        .warn(
            "leaderElection uses kube-scheduler's own Lease kube-system/kube-scheduler: this "
            "replica will compete with the default scheduler for it; set "
            "leaderElection.resourceName (or --leader-elect-resource-name) to a name of its own");
  }
  return cfg;
}

absl::Status WriteEffectiveConfig(const config::SchedulerConfig& cfg, const std::string& path) {
  const std::string text = config::WriteConfigYaml(cfg);
  if (path == "-" || path == "/dev/stdout") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return absl::OkStatus();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return absl::InvalidArgumentError(
        absl::StrCat("--write-config-to ", path, ": cannot open for writing"));
  out << text;
  out.close();
  if (!out)
    return absl::InvalidArgumentError(absl::StrCat("--write-config-to ", path, ": write failed"));
  return absl::OkStatus();
}

// ---- The daemon ----

// Everything the daemon owns, and the steps that build, run and stop it (SchedulerApp's
// Create and Run read as a list of these).
struct SchedulerApp::State {
  SchedulerOptions options;
  config::SchedulerConfig config;
  const Clock& clock = RealClock::Get();

  stats::Registry& registry = stats::DefaultRegistry();
  // The only prefixes (docs/metrics.md lists every family /metrics serves): client-go's
  // names, ours, and kube-scheduler's; every component names its families relative to
  // the scope it gets.
  const stats::Scope rest_client_stats{registry, "rest_client_"};
  const stats::Scope trimaran_stats{registry, "trimaran_"};
  const sched::StatsScopes sched_stats{.upstream = stats::Scope(registry, "scheduler_"),
                                       .own = trimaran_stats};
  // The client configuration every client starts from, and this replica's identity
  // (events' reportingInstance, the Lease's holderIdentity).
  kube::RestConfig rest;
  std::string identity;

  std::unique_ptr<kube::RestClient> client;         // pods, nodes, bindings, status
  std::unique_ptr<kube::RestClient> events_client;  // events only
  std::unique_ptr<kube::RestClient> lease_client;   // leader election only
  // The secure port's TokenReviews and SubjectAccessReviews (may be one client).
  std::unique_ptr<kube::RestClient> authn_client;
  std::unique_ptr<kube::RestClient> authz_client;
  std::unique_ptr<sched::DelegatingAuthorizer> authorizer;
  // The extender port's /metrics authorizer when there is no secure port (--secure-port
  // 0): the same delegated checks over the scheduler's own connection.
  std::unique_ptr<sched::DelegatingAuthorizer> extender_authorizer;
  std::unique_ptr<sched::AsyncEventRecorder> recorder;
  // Events on this replica's Pod when live-load metrics stop being usable (and return).
  std::unique_ptr<sched::MetricsAvailabilityEvents> metrics_availability;
  // The load-aware plugins' metrics sources (one watcher per distinct metricProvider,
  // one client per watcherAddress); outlives the scheduler.
  std::unique_ptr<providers::ProviderSourcePool> sources;
  // The recent decisions (--decisions-capacity; null when 0): written by the scheduler,
  // read by /debug/decisions; outlives both.
  std::unique_ptr<sched::decisions::DecisionRing> decisions;
  std::unique_ptr<sched::Scheduler> scheduler;
  // Nodes, pods, the selector objects (the scheduler's ObjectStore), the storage objects
  // (its StorageStore) and, only when a profile enables Coscheduling, PodGroups (its
  // PodGroupStore): sched::AddAllEventHandlers.
  sched::SchedulerInformers informers;
  // After the informers: destroyed first, so no scrape reads a destroyed informer.
  std::vector<std::unique_ptr<kube::InformerStats>> informer_stats;
  // Writes the PodGroups' status while leading (Coscheduling only).
  std::unique_ptr<sched::plugins::PodGroupStatusWriter> pod_group_status;
  std::unique_ptr<kube::LeaderElector> elector;

  sched::HealthChecks checks;
  sched::SettableCheck synced{absl::UnavailableError("informers have not synced yet")};
  sched::SettableCheck shutdown{absl::OkStatus()};
  std::unique_ptr<sched::AdminServer> admin;
  // Extender mode (--extender): the profile's backend, the protocol and its server.
  std::unique_ptr<sched::extender::FrameworkBackend> extender_backend;
  std::unique_ptr<sched::extender::ExtenderService> extender_service;
  std::unique_ptr<http::HttpServer> extender_server;

  std::stop_source stop;
  // Requested the moment the lease is lost: fences the binding cycles.
  std::stop_source lost;
  std::atomic<bool> leadership_lost{false};
  std::atomic<bool> leading{false};

  // The fence of the writes that act as the leader besides the scheduler's own (the
  // PodGroup status): the lease's loss and LeadingUntil(), as the Binding's
  // (SchedulerOptions::fence_stop / leading_until). Unbounded without leader election.
  kube::CallOptions LeaderCallOptions() const {
    if (!config.leader_election.leader_elect) return {};
    return {.stop = lost.get_token(),
            .deadline = elector ? elector->LeadingUntil() : absl::InfinitePast()};
  }

  // ---- Create's steps ----

  // The main, events and leader-election clients over `rest`.
  absl::Status CreateClients();
  // The profiles to run: all, or in extender mode the one it serves (leader election
  // off: every replica answers kube-scheduler).
  absl::StatusOr<std::vector<sched::ProfileConfig>> SelectProfiles(const sched::Registry& plugins);
  // The event recorder, the load-watcher sources, the decisions ring and the Scheduler.
  absl::Status CreateScheduler(std::vector<sched::ProfileConfig> profiles,
                               const sched::Registry& plugins);
  sched::SchedulerOptions MakeSchedulerOptions();
  // The informers with their handlers and stats, the PodGroup status writer when
  // `coscheduling`, and leader_election_master_status.
  void CreateInformers(bool coscheduling);
  void CreateInformerStats();
  // readyz "informer-sync" and "shutdown".
  absl::Status AddHealthChecks();
  // The LeaderElector (scheduling while leading, the exit on a loss) and its watchdog.
  absl::Status CreateLeaderElector();
  // What the elector runs while this replica leads.
  void LeadAndSchedule(std::stop_token token);
  // The secure port: delegated authentication and authorization, /configz, /readyz's
  // note, /debug/decisions and /debug/cache.
  absl::Status CreateAdminServer();
  absl::StatusOr<std::unique_ptr<kube::RestClient>> ReviewClient(const std::string& kubeconfig,
                                                                 const char* what);
  void SetDebugHandlers();
  // --extender: the backend over the scheduler's one profile, the service and its HTTPS
  // server (routes added, not started).
  absl::Status CreateExtender();
  absl::StatusOr<http::HttpServerOptions> ExtenderServerOptions();
  absl::Status AddExtenderMetricsAndProbes();

  // ---- Run's steps ----

  // The admin and extender servers; false (logged) when one cannot serve.
  bool StartServers();
  // Every informer; the PodGroup thread (its sync, then its status writes while
  // leading) when there is a PodGroup informer.
  std::jthread StartInformers();
  // Nodes and pods without a bound, the others for kObjectInformersSyncTimeout; then
  // readyz "informer-sync" passes.
  void WaitForInformersSync();
  // Until asked to stop: the extender's wait, leader election, or scheduling.
  void Serve();
  // Stops everything in order; the exit code.
  int StopInOrder();
};

namespace {

// How long a replica that lost the lease may spend shutting down before it _Exit(1)s.
constexpr absl::Duration kLostLeadershipExitGrace = absl::Seconds(2);
// How long a graceful stop waits for queued events before dropping them.
constexpr absl::Duration kShutdownEventFlush = absl::Milliseconds(500);
// How long Run waits for the namespace, service and controller informers to sync.
constexpr absl::Duration kObjectInformersSyncTimeout = absl::Seconds(30);

absl::StatusOr<std::unique_ptr<kube::RestClient>> MakeClient(const kube::RestConfig& base,
                                                             double qps, int burst,
                                                             const std::string& agent,
                                                             const Clock& clock,
                                                             const stats::Scope& stats) {
  kube::RestConfig rc = base;
  rc.qps = qps;
  rc.burst = burst;
  rc.user_agent = agent;
  kube::RestClientOptions options;
  options.stats = stats;
  return kube::RestClient::Create(rc, clock, options);
}

// An informer's store for /debug/cache?store=...: a head line with the object count and
// the informer's resourceVersion, then one "<key> <resourceVersion>" line per object,
// sorted by key.
template <typename T>
std::string StoreDump(const kube::Informer<T>& informer) {
  std::vector<std::string> lines;
  for (const std::shared_ptr<const T>& obj : informer.store().List()) {
    lines.push_back(absl::StrCat(kube::ObjectKey(*obj), " ", obj->metadata.resource_version));
  }
  std::sort(lines.begin(), lines.end());
  std::string out = absl::StrCat("objects ", lines.size(), " resourceVersion ",
                                 informer.LastSyncResourceVersion(), "\n");
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

// The secure port's serving pair: --tls-cert-file, or a self-signed one in --cert-dir,
// generated once and reused. Without --cert-dir, in a fresh private directory (mode
// 0700, made by mkdtemp: never a predictable path another user could have prepared),
// remembered in `options.cert_dir` so that the extender port serves the same pair.
absl::StatusOr<http::ServingCertFiles> ServingCert(SchedulerOptions& options) {
  if (!options.tls_cert_file.empty()) {
    return http::ServingCertFiles{.cert_file = options.tls_cert_file,
                                  .key_file = options.tls_private_key_file};
  }
  if (options.cert_dir.empty()) {
    absl::StatusOr<std::string> dir = MakePrivateTempDir("trimaran-scheduler-certs-");
    if (!dir.ok()) return Annotate(dir.status(), "making a private directory for the certificate");
    options.cert_dir = *dir;
  }
  absl::StatusOr<http::ServingCertFiles> files = http::EnsureSelfSignedCert(options.cert_dir);
  if (!files.ok())
    return Annotate(files.status(), "generating the self-signed serving certificate");
  if (files->generated) {
    Log(Component::kAdmin)
        .info("generated a self-signed serving certificate in {}", options.cert_dir);
  }
  return files;
}

}  // namespace

absl::StatusOr<sched::ProfileConfig> SelectExtenderProfile(
    std::vector<sched::ProfileConfig> profiles, const std::string& name) {
  std::vector<std::string> names;
  for (sched::ProfileConfig& p : profiles) {
    if (!name.empty() && p.scheduler_name == name) return std::move(p);
    names.push_back(p.scheduler_name);
  }
  if (name.empty() && profiles.size() == 1) return std::move(profiles[0]);
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--extender: the configuration has ", profiles.size(),
                     " profiles; name the one to serve with --extender-profile (one of ",
                     absl::StrJoin(names, ", "), ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat("--extender-profile ", name,
                                                 ": no such profile (the configuration has ",
                                                 absl::StrJoin(names, ", "), ")"));
}

SchedulerApp::SchedulerApp(std::unique_ptr<State> state) : s_(std::move(state)) {}

SchedulerApp::~SchedulerApp() {
  if (s_ == nullptr) return;
  // Order: nothing may call into the scheduler once it is gone.
  if (s_->elector) s_->stop.request_stop();
  s_->informers.Stop();
  if (s_->scheduler) s_->scheduler->Stop();
  if (s_->sources) s_->sources->Stop();
  if (s_->admin) s_->admin->Stop();
  if (s_->extender_server) s_->extender_server->Stop();
}

absl::StatusOr<std::unique_ptr<SchedulerApp>> SchedulerApp::Create(const SchedulerOptions& options,
                                                                   config::SchedulerConfig cfg) {
  auto s = std::make_unique<State>();
  s->options = options;
  s->config = std::move(cfg);
  stats::RegisterProcessMetrics(s->registry);
  stats::RegisterBuildInfo(s->registry, "trimaran_");

  kube::LoadOptions load;
  load.kubeconfig_path = s->config.client_connection.kubeconfig;
  load.master_override = options.master;
  absl::StatusOr<kube::RestConfig> rest = kube::LoadRestConfig(load);
  if (!rest.ok()) return Annotate(rest.status(), "loading the client configuration");
  s->rest = *std::move(rest);
  TRIMARAN_RETURN_IF_ERROR(s->CreateClients());

  const sched::Registry plugins = sched::plugins::InTreeRegistry();
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles, s->SelectProfiles(plugins));
  const bool coscheduling = std::any_of(profiles.begin(), profiles.end(), [](const auto& p) {
    const std::string_view name(sched::plugins::Coscheduling::kName.data(),
                                sched::plugins::Coscheduling::kName.size());
    return std::find(p.queue_sort.begin(), p.queue_sort.end(), name) != p.queue_sort.end() ||
           std::find(p.pre_filter.begin(), p.pre_filter.end(), name) != p.pre_filter.end() ||
           std::find(p.permit.begin(), p.permit.end(), name) != p.permit.end();
  });
  TRIMARAN_RETURN_IF_ERROR(s->CreateScheduler(std::move(profiles), plugins));
  s->CreateInformers(coscheduling);
  // Health checks: healthz/livez have "ping" (+ the leader-election watchdog); readyz adds
  // informer sync and shutdown.
  TRIMARAN_RETURN_IF_ERROR(s->AddHealthChecks());
  if (s->config.leader_election.leader_elect) TRIMARAN_RETURN_IF_ERROR(s->CreateLeaderElector());
  if (options.secure_port != 0) TRIMARAN_RETURN_IF_ERROR(s->CreateAdminServer());
  if (options.extender) TRIMARAN_RETURN_IF_ERROR(s->CreateExtender());
  return std::unique_ptr<SchedulerApp>(new SchedulerApp(std::move(s)));
}

absl::Status SchedulerApp::State::CreateClients() {
  const config::ClientConnection& cc = config.client_connection;
  TRIMARAN_ASSIGN_OR_RETURN(
      client, MakeClient(rest, cc.qps, cc.burst, "trimaran-scheduler", clock, rest_client_stats));
  // client-go's defaults (5 QPS, burst 10) are far too low for bursts of events; give the
  // events client the main budget again, separately.
  TRIMARAN_ASSIGN_OR_RETURN(
      events_client,
      MakeClient(rest, cc.qps, cc.burst, "trimaran-scheduler/events", clock, rest_client_stats));
  TRIMARAN_ASSIGN_OR_RETURN(
      lease_client,
      MakeClient(rest, 5, 10, "trimaran-scheduler/leader-election", clock, rest_client_stats));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<sched::ProfileConfig>> SchedulerApp::State::SelectProfiles(
    const sched::Registry& plugins) {
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                            config::ExpandProfiles(config, plugins));
  if (!options.extender) return profiles;
  // One profile, no scheduling loop, no leader election: every replica answers.
  TRIMARAN_ASSIGN_OR_RETURN(sched::ProfileConfig profile,
                            SelectExtenderProfile(std::move(profiles), options.extender_profile));
  profiles.clear();
  profiles.push_back(std::move(profile));
  if (config.leader_election.leader_elect) {
    Log(Component::kMain)
        .info("extender mode: leader election is off (every replica answers kube-scheduler)");
    config.leader_election.leader_elect = false;
  }
  return profiles;
}

absl::Status SchedulerApp::State::CreateScheduler(std::vector<sched::ProfileConfig> profiles,
                                                  const sched::Registry& plugins) {
  sched::EventRecorderOptions rec;
  identity = kube::DefaultLeaderIdentity();
  rec.reporting_instance = absl::StrCat("trimaran-scheduler-", identity);
  recorder =
      std::make_unique<sched::AsyncEventRecorder>(*events_client, clock, trimaran_stats, rec);
  // The Pod the downward API names (POD_NAME, POD_NAMESPACE: deploy/base/deployment.yaml);
  // log lines only in extender mode, whose RBAC writes no events.
  metrics_availability = std::make_unique<sched::MetricsAvailabilityEvents>(
      *recorder,
      options.extender ? std::nullopt : sched::SelfPodFromEnvironment([](const char* name) {
        return std::getenv(name);
      }));
  providers::ProviderSourcePoolOptions pool_options;
  pool_options.remote_max_response_bytes =
      static_cast<size_t>(options.load_watcher_max_response_bytes);
  sources = std::make_unique<providers::ProviderSourcePool>(
      clock, trimaran_stats.Child("loadwatcher_"), client.get(), pool_options);
  if (options.decisions_capacity > 0) {
    decisions = std::make_unique<sched::decisions::DecisionRing>(
        static_cast<size_t>(options.decisions_capacity));
  }
  TRIMARAN_ASSIGN_OR_RETURN(
      scheduler, sched::Scheduler::Create(std::move(profiles), plugins, *client, clock, sched_stats,
                                          MakeSchedulerOptions(), recorder.get()));
  return absl::OkStatus();
}

sched::SchedulerOptions SchedulerApp::State::MakeSchedulerOptions() {
  const config::SchedulerConfig& c = config;
  sched::SchedulerOptions so;
  so.load_watcher_sources = sources.get();
  so.metrics_availability = metrics_availability.get();
  so.decisions = decisions.get();
  if (c.leader_election.leader_elect) {
    // The fence: no Binding once the lease may have passed to another replica.
    so.leading_until = [this] { return elector ? elector->LeadingUntil() : absl::InfinitePast(); };
    so.fence_stop = lost.get_token();
  }
  so.parallelism = c.parallelism;
  so.backoff.initial = absl::Seconds(c.pod_initial_backoff_seconds);
  so.backoff.max = absl::Seconds(c.pod_max_backoff_seconds);
  so.percentage_of_nodes_to_score = c.percentage_of_nodes_to_score;
  so.deterministic_tie_break = options.tie_break == "lowest-name";
  so.assumed_pod_ttl = sched::kDaemonAssumedPodTtl;
  return so;
}

void SchedulerApp::State::CreateInformers(bool coscheduling) {
  informers = sched::AddAllEventHandlers(
      *scheduler, *client, clock,
      {.assigned_pods_only = options.extender, .pod_groups = coscheduling});
  if (coscheduling) {
    pod_group_status = std::make_unique<sched::plugins::PodGroupStatusWriter>(
        scheduler->pod_groups(), *client, clock, [this] { return LeaderCallOptions(); });
    sched::plugins::PodGroupStatusWriter* writer = pod_group_status.get();
    scheduler->SetPodGroupObserver(
        [writer](const std::string& ns, const std::string& name) { writer->MarkDirty(ns, name); });
  }
  CreateInformerStats();
  // kube-scheduler's leader_election_master_status{name}: 1 while this replica schedules.
  stats::Scope(registry, "leader_election_")
      .CallbackGaugeFamily("master_status",
                           "1 while this replica is the leader (or runs without leader "
                           "election), 0 otherwise.",
                           {"name"})
      .WithLabels({config.leader_election.resource_name})
      .Set([this] { return leading.load() ? 1.0 : 0.0; });
}

void SchedulerApp::State::CreateInformerStats() {
  const stats::Scope scope = trimaran_stats.Child("informer_");
  auto add = [&](std::string name, const kube::InformerCounters& counters) {
    informer_stats.push_back(std::make_unique<kube::InformerStats>(scope, name, counters));
  };
  for (size_t i = 0; i < informers.objects.size(); ++i) {
    add(std::string(kube::PluralName(informers.object_resources[i])),
        informers.objects[i]->counters());
  }
  for (size_t i = 0; i < informers.storage.size(); ++i) {
    add(std::string(kube::PluralName(kube::kAllStorageResources[i])),
        informers.storage[i]->counters());
  }
  if (informers.pod_groups) add("podgroups", informers.pod_groups->counters());
  add("nodes", informers.nodes->counters());
  add("pods", informers.pods->counters());
}

absl::Status SchedulerApp::State::AddHealthChecks() {
  TRIMARAN_RETURN_IF_ERROR(checks.Add("informer-sync", sched::kReadyz, synced.AsCheck()));
  return checks.Add("shutdown", sched::kReadyz, shutdown.AsCheck());
}

absl::Status SchedulerApp::State::CreateLeaderElector() {
  const config::LeaderElection& cle = config.leader_election;
  kube::LeaderElectionConfig le;
  le.lease_namespace = cle.resource_namespace;
  le.lease_name = cle.resource_name;
  le.identity = identity;
  le.lease_duration = cle.lease_duration;
  le.renew_deadline = cle.renew_deadline;
  le.retry_period = cle.retry_period;
  le.release_on_cancel = true;
  le.on_started_leading = [this](std::stop_token token) { LeadAndSchedule(std::move(token)); };
  le.on_stopped_leading = [this] {
    leading.store(false);
    if (!stop.stop_requested()) {
      leadership_lost.store(true);
      stop.request_stop();
    }
  };
  le.on_new_leader = [](const std::string& id) {
    Log(Component::kMain).info("new leader elected: {}", id);
  };
  TRIMARAN_RETURN_IF_ERROR(kube::ValidateLeaderElectionConfig(le));
  elector = std::make_unique<kube::LeaderElector>(*lease_client, clock, std::move(le));
  kube::LeaderElector* el = elector.get();
  const absl::Duration grace = cle.lease_duration + absl::Seconds(20);
  const Clock* c = &clock;
  // kube-scheduler's leader-election watchdog: a leader whose renewals stalled past the
  // lease (plus a grace period) is unhealthy.
  return checks.Add(
      "leaderElection", sched::kHealthz | sched::kLivez, [el, grace, c]() -> absl::Status {
        if (!el->IsLeader()) return absl::OkStatus();
        const absl::Duration since = c->Now() - el->LastRenew();
        if (since > grace) {
          return absl::UnavailableError(absl::StrCat(
              "failed election to renew leadership on lease for ", absl::FormatDuration(since)));
        }
        return absl::OkStatus();
      });
}

void SchedulerApp::State::LeadAndSchedule(std::stop_token token) {
  Log(Component::kMain).info("became the leader; scheduling");
  leading.store(true);
  // The token fires on a loss, or on Stop after `stop` was requested. A loss fences the
  // binds and exits 1 at once (kube-scheduler exits in OnStoppedLeading): shutdown gets
  // kLostLeadershipExitGrace to close cleanly, past it (a hung apiserver call, say) the
  // process ends anyway.
  std::stop_callback on_loss(token, [this] {
    if (stop.stop_requested()) return;
    lost.request_stop();
    Log(Component::kMain).error("leaderelection lost; exiting");
    std::thread([] {
      absl::SleepFor(kLostLeadershipExitGrace);
      Log(Component::kMain)
          .error("leaderelection lost; shutdown did not finish in {}",
                 absl::FormatDuration(kLostLeadershipExitGrace));
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(1);
    }).detach();
    leadership_lost.store(true);
    stop.request_stop();
  });
  scheduler->Run(token);
  leading.store(false);
}

absl::Status SchedulerApp::State::CreateAdminServer() {
  sched::AdminServerOptions ao;
  ao.bind_address = options.bind_address;
  ao.port = options.secure_port;
  TRIMARAN_ASSIGN_OR_RETURN(http::ServingCertFiles files, ServingCert(options));
  ao.cert_file = files.cert_file;
  ao.key_file = files.key_file;
  TRIMARAN_ASSIGN_OR_RETURN(
      authn_client, ReviewClient(options.authentication_kubeconfig, "authentication-kubeconfig"));
  TRIMARAN_ASSIGN_OR_RETURN(
      authz_client, ReviewClient(options.authorization_kubeconfig, "authorization-kubeconfig"));
  authorizer = std::make_unique<sched::DelegatingAuthorizer>(
      authn_client.get(), authz_client.get(), clock,
      sched::DelegatingAuthorizerOptions{.always_allow_paths =
                                             options.authorization_always_allow_paths});
  ao.authorizer = authorizer.get();
  ao.tls_min_version = options.tls_min_version;
  const config::SchedulerConfig* cp = &config;
  TRIMARAN_ASSIGN_OR_RETURN(
      admin,
      sched::AdminServer::Create(ao, &registry, &checks, [cp]() -> absl::StatusOr<std::string> {
        return config::WriteConfigJson(*cp);
      }));
  SetDebugHandlers();
  return absl::OkStatus();
}

// Delegated authentication and authorization: the given kubeconfigs, else the
// scheduler's own connection, each on a client of its own (reviews are cached 10 s).
absl::StatusOr<std::unique_ptr<kube::RestClient>> SchedulerApp::State::ReviewClient(
    const std::string& kubeconfig, const char* what) {
  kube::RestConfig rc = rest;
  if (!kubeconfig.empty()) {
    kube::LoadOptions lo;
    lo.kubeconfig_path = kubeconfig;
    absl::StatusOr<kube::RestConfig> loaded = kube::LoadRestConfig(lo);
    if (!loaded.ok()) return Annotate(loaded.status(), absl::StrCat("loading --", what));
    rc = *loaded;
  }
  return MakeClient(rc, 50, 100, absl::StrCat("trimaran-scheduler/", what), clock,
                    rest_client_stats);
}

void SchedulerApp::State::SetDebugHandlers() {
  // /readyz?verbose reports leadership (the metric leader_election_master_status too).
  admin->SetReadyzNote([this]() -> std::string {
    const config::LeaderElection& le = config.leader_election;
    if (!le.leader_elect) return "leader-election: disabled (this replica schedules)";
    return absl::StrCat("leader-election: ", leading.load() ? "leading" : "standby", " (lease ",
                        le.resource_namespace, "/", le.resource_name, ")");
  });
  // /debug/decisions: the recent decisions (an empty list when recording is off).
  admin->SetDebugDecisionsHandler(
      [this](const http::ServerRequest& req, http::ServerResponse& res) {
        sched::decisions::ServeDecisions(decisions.get(), req, res);
      });
  // /debug/cache: the scheduler cache; ?store=pods or ?store=nodes: that informer's
  // store (what a fresh list is compared with).
  admin->SetDebugCacheHandler([this](const http::ServerRequest& req) -> std::string {
    const std::string store = std::string(req.Query("store"));
    if (store == "pods") return StoreDump(*informers.pods);
    if (store == "nodes") return StoreDump(*informers.nodes);
    for (size_t i = 0; i < informers.objects.size(); ++i) {
      if (store == kube::PluralName(informers.object_resources[i])) {
        return StoreDump(*informers.objects[i]);
      }
    }
    for (size_t i = 0; i < informers.storage.size(); ++i) {
      if (store == kube::PluralName(kube::kAllStorageResources[i])) {
        return StoreDump(*informers.storage[i]);
      }
    }
    return scheduler->cache().Dump().DebugString();
  });
}

absl::Status SchedulerApp::State::CreateExtender() {
  sched::Framework* fwk = nullptr;
  for (const config::Profile& p : config.profiles) {
    fwk = scheduler->FrameworkFor(p.scheduler_name);
    if (fwk != nullptr) break;
  }
  if (fwk == nullptr) return absl::InternalError("extender: the profile's framework is missing");
  // /bind: nothing without --extender-bind; else pending pods of
  // --extender-bind-scheduler-names, looked up in the pod informer's store.
  sched::extender::BindOptions bind;
  if (options.extender_bind) {
    const kube::Informer<kube::Pod>* informer = informers.pods.get();
    bind.client = client.get();
    bind.pods = [informer](const std::string& ns,
                           const std::string& name) -> std::shared_ptr<const kube::Pod> {
      return informer->store().Get(absl::StrCat(ns, "/", name));
    };
    bind.scheduler_names = options.extender_bind_scheduler_names;
  }
  sched::Scheduler* sch = scheduler.get();
  extender_backend = std::make_unique<sched::extender::FrameworkBackend>(
      *fwk,
      [sch]() -> absl::StatusOr<const sched::NodeInfoLister*> {
        absl::StatusOr<const sched::Snapshot*> snapshot = sch->RefreshSnapshot();
        if (!snapshot.ok()) return snapshot.status();
        return *snapshot;
      },
      std::move(bind));
  extender_service = std::make_unique<sched::extender::ExtenderService>(
      *extender_backend, clock, sched_stats.own.Child("extender_"),
      sched::extender::ExtenderServiceOptions{
          .bind = options.extender_bind,
          .ready = [this] { return synced.Get(); },
      });
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpServerOptions ho, ExtenderServerOptions());
  TRIMARAN_ASSIGN_OR_RETURN(extender_server, http::HttpServer::Create(ho));
  TRIMARAN_RETURN_IF_ERROR(extender_service->AddRoutes(*extender_server));
  return AddExtenderMetricsAndProbes();
}

absl::StatusOr<http::HttpServerOptions> SchedulerApp::State::ExtenderServerOptions() {
  http::HttpServerOptions ho;
  ho.name = "extender";
  ho.address = options.extender_bind_address;
  ho.port = options.extender_port;
  if (!options.extender_tls_cert_file.empty()) {
    ho.tls_cert_file = options.extender_tls_cert_file;
    ho.tls_key_file = options.extender_tls_private_key_file;
  } else {
    TRIMARAN_ASSIGN_OR_RETURN(http::ServingCertFiles files, ServingCert(options));
    ho.tls_cert_file = files.cert_file;
    ho.tls_key_file = files.key_file;
  }
  // Mutual TLS (the handshake needs a certificate of the client CA), then the allowed
  // names on every path but the probes and /metrics (which takes a bearer token, as on
  // the secure port).
  ho.client_ca_file = options.extender_client_ca_file;
  ho.request_filter =
      [policy = sched::extender::ClientNamePolicy{.require_client_certificate =
                                                      !options.extender_client_ca_file.empty(),
                                                  .allowed_names = options.extender_allowed_names}](
          const http::ServerRequest& req, http::ServerResponse& res) {
        return policy.Check(req, res);
      };
  ho.unfiltered_paths = {"/healthz", "/readyz", "/metrics"};
  ho.tls_min_version = options.tls_min_version;
  // kube-scheduler sends full Node objects without nodeCacheCapable: 5,000 nodes are
  // tens of MiB.
  ho.max_request_body_bytes = size_t{256} << 20;
  ho.read_timeout = absl::Seconds(30);
  ho.write_timeout = absl::Seconds(30);
  ho.worker_threads = 16;
  ho.log_component = Component::kAdmin;
  return ho;
}

absl::Status SchedulerApp::State::AddExtenderMetricsAndProbes() {
  stats::Registry* reg = &registry;
  const sched::RequestAuthorizer* auth = authorizer.get();
  if (auth == nullptr) {
    extender_authorizer = std::make_unique<sched::DelegatingAuthorizer>(
        client.get(), client.get(), clock,
        sched::DelegatingAuthorizerOptions{.always_allow_paths =
                                               options.authorization_always_allow_paths});
    auth = extender_authorizer.get();
  }
  TRIMARAN_RETURN_IF_ERROR(extender_server->AddRoute(http::Route{
      .path = "/metrics",
      .help = "Prometheus metrics (the same as the secure port's, with the same bearer token "
              "and authorization)",
      .handler =
          [reg, auth](const http::ServerRequest& req, http::ServerResponse& res) {
            const sched::AuthDecision decision = auth->Check(req);
            if (!decision.allowed()) {
              res.status = decision.status;
              res.body = decision.message;
              return;
            }
            res.content_type = "text/plain; version=0.0.4; charset=utf-8";
            res.body = reg->PrometheusText();
          },
  }));
  sched::HealthChecks* health = &checks;
  for (const char* path : {"/healthz", "/readyz"}) {
    const bool ready = std::string(path) == "/readyz";
    TRIMARAN_RETURN_IF_ERROR(extender_server->AddRoute(http::Route{
        .path = path,
        .help = ready ? "ok once the informers synced (the extender answers)" : "ok while alive",
        .handler =
            [health, ready](const http::ServerRequest&, http::ServerResponse& res) {
              std::string failed;
              for (const sched::HealthChecks::Result& r :
                   health->Run(ready ? sched::kReadyz : sched::kHealthz, {})) {
                if (!r.status.ok())
                  absl::StrAppend(&failed, r.name, ": ", r.status.message(), "\n");
              }
              res.status = failed.empty() ? 200 : 503;
              res.body = failed.empty() ? "ok" : failed;
            },
    }));
  }
  return absl::OkStatus();
}

// ---- Run ----

void SchedulerApp::RequestStop() {
  s_->shutdown.Set(absl::UnavailableError("shutting down"));
  s_->stop.request_stop();
}

int SchedulerApp::Run() {
  State& s = *s_;
  if (!s.StartServers()) return 1;
  std::vector<std::string> names;
  for (const config::Profile& p : s.config.profiles) names.push_back(p.scheduler_name);
  Log(Component::kMain)
      .info("starting trimaran-scheduler profiles=[{}] leader_elect={}", absl::StrJoin(names, ","),
            s.config.leader_election.leader_elect);
  const std::jthread pod_groups = s.StartInformers();
  s.WaitForInformersSync();
  s.Serve();
  return s.StopInOrder();
}

bool SchedulerApp::State::StartServers() {
  if (admin) {
    if (absl::Status st = admin->Start(); !st.ok()) {
      Log(Component::kMain).error("cannot serve on the secure port: {}", st);
      return false;
    }
    Log(Component::kMain).info("serving healthz, readyz, metrics and configz on {}", admin->url());
  }
  if (extender_server) {
    if (absl::Status st = extender_server->Start(); !st.ok()) {
      Log(Component::kMain).error("cannot serve the extender: {}", st);
      return false;
    }
    Log(Component::kMain)
        .info("serving the scheduler extender protocol on {} (bind {})", extender_server->url(),
              options.extender_bind ? "on" : "off");
  }
  return true;
}

std::jthread SchedulerApp::State::StartInformers() {
  // Informers first (nodes, then pods, then namespaces, services and controllers), on
  // every replica: a standby that takes over has a warm cache.
  informers.nodes->Start();
  informers.pods->Start();
  for (auto& informer : informers.objects) informer->Start();
  for (auto& informer : informers.storage) informer->Start();
  if (!informers.pod_groups) return std::jthread();
  // PodGroups: their own thread watches the informer's sync (an apiserver without the
  // CRD is survived: pods of a group wait with a clear message until it appears) and,
  // while this replica leads, writes the groups' status every 500 ms.
  informers.pod_groups->Start();
  return std::jthread([this](std::stop_token st) {
    const absl::Time deadline = clock.Now() + kObjectInformersSyncTimeout;
    bool readable = false;
    bool warned = false;
    while (clock.SleepFor(absl::Milliseconds(500), st)) {
      if (!readable && informers.pod_groups->HasSynced()) {
        readable = true;
        scheduler->SetPodGroupsHealth(absl::OkStatus());
        Log(Component::kMain).info("PodGroups synced (Coscheduling)");
      } else if (!readable && !warned && clock.Now() >= deadline) {
        warned = true;
        absl::Status why = absl::FailedPreconditionError(
            "PodGroups cannot be listed: is the PodGroup CRD (podgroups.scheduling.x-k8s.io) "
            "installed and may the scheduler list and watch it? "
            "(deploy/components/coscheduling)");
        Log(Component::kMain)
            .warn("{}; pods with the scheduling.x-k8s.io/pod-group label wait", why.message());
        scheduler->SetPodGroupsHealth(std::move(why));
      }
      if (leading.load()) pod_group_status->SyncDirty();
    }
  });
}

namespace {

// Waits until `informer` synced, `stop` is requested or `deadline` passed; whether it
// synced (false when stopping).
template <typename T>
bool WaitForSyncUntil(const kube::Informer<T>& informer, absl::Time deadline, const Clock& clock,
                      const std::stop_source& stop) {
  while (!stop.stop_requested() && !informer.WaitForSync(absl::Milliseconds(200))) {
    if (clock.Now() >= deadline) break;
  }
  return stop.stop_requested() || informer.HasSynced();
}

}  // namespace

void SchedulerApp::State::WaitForInformersSync() {
  while (!stop.stop_requested()) {
    if (informers.nodes->WaitForSync(absl::Milliseconds(200)) &&
        informers.pods->WaitForSync(absl::Milliseconds(200))) {
      break;
    }
  }
  // The other informers only refine InterPodAffinity (namespaceSelector),
  // PodTopologySpread's default constraints and preemption's PodDisruptionBudgets: wait
  // for them a bounded time, so that a missing permission (an older ClusterRole) degrades
  // those features, loudly, instead of stopping scheduling.
  const absl::Time objects_deadline = clock.Now() + kObjectInformersSyncTimeout;
  for (size_t i = 0; i < informers.objects.size() && !stop.stop_requested(); ++i) {
    if (!WaitForSyncUntil(*informers.objects[i], objects_deadline, clock, stop)) {
      Log(Component::kMain)
          .warn(
              "the {} informer has not synced in {} (does the scheduler's ClusterRole allow "
              "list and watch of {}?); scheduling without them until it does: "
              "namespaceSelector terms, default topology spreading and preemption's "
              "PodDisruptionBudgets see only what it has",
              kube::PluralName(informers.object_resources[i]),
              absl::FormatDuration(kObjectInformersSyncTimeout),
              kube::PluralName(informers.object_resources[i]));
    }
  }
  // The storage informers feed the volume plugins: the same bounded wait, so that an
  // older ClusterRole degrades volume checks (loudly) rather than stopping scheduling.
  for (size_t i = 0; i < informers.storage.size() && !stop.stop_requested(); ++i) {
    if (!WaitForSyncUntil(*informers.storage[i], objects_deadline, clock, stop)) {
      Log(Component::kMain)
          .warn(
              "the {} informer has not synced in {} (does the scheduler's ClusterRole allow "
              "list and watch of {}?); scheduling without them until it does: pods with "
              "volumes see only what it has",
              kube::PluralName(kube::kAllStorageResources[i]),
              absl::FormatDuration(kObjectInformersSyncTimeout),
              kube::PluralName(kube::kAllStorageResources[i]));
    }
  }
  if (!stop.stop_requested()) {
    synced.Set(absl::OkStatus());
    Log(Component::kMain).info("informers synced");
  }
}

void SchedulerApp::State::Serve() {
  std::stop_token token = stop.get_token();
  if (extender_server) {
    // No scheduling loop: answer kube-scheduler until asked to stop.
    clock.SleepUntil(absl::InfiniteFuture(), token);
  } else if (elector) {
    std::jthread election([this, token] { elector->Run(token); });
    // Wait until asked to stop (signal or lost leadership).
    clock.SleepUntil(absl::InfiniteFuture(), token);
    election.join();  // stops scheduling, drains bindings, releases the lease
  } else if (!token.stop_requested()) {
    leading.store(true);
    scheduler->Run(token);
    leading.store(false);
  }
}

int SchedulerApp::State::StopInOrder() {
  const absl::Time stopping = absl::Now();
  scheduler->Stop();
  const absl::Time scheduler_stopped = absl::Now();
  sources->Stop();
  informers.Stop();
  const absl::Time informers_stopped = absl::Now();
  // Events are best effort: a backlog (a Scheduled event per pod just bound) does not
  // hold the exit (issue 30).
  if (const size_t dropped = recorder->FlushFor(kShutdownEventFlush); dropped > 0) {
    Log(Component::kMain).warn("shutdown: {} queued events not written", dropped);
  }
  Log(Component::kMain)
      .info("shutdown: scheduler stopped in {}, informers in {}, events in {}",
            absl::FormatDuration(scheduler_stopped - stopping),
            absl::FormatDuration(informers_stopped - scheduler_stopped),
            absl::FormatDuration(absl::Now() - informers_stopped));
  if (admin) admin->Stop();
  if (extender_server) extender_server->Stop();
  if (leadership_lost.load()) {
    Log(Component::kMain).error("leaderelection lost");
    return 1;
  }
  Log(Component::kMain).info("stopped");
  return 0;
}

}  // namespace trimaran::cmd
