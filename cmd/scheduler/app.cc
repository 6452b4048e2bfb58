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
#include "scheduler/event_recorder.h"
#include "scheduler/extender/client_names.h"
#include "scheduler/extender/extender_service.h"
#include "scheduler/extender/framework_backend.h"
#include "scheduler/framework/stats_scopes.h"
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

struct SchedulerApp::State {
  SchedulerOptions options;
  config::SchedulerConfig config;
  const Clock& clock = RealClock::Get();

  stats::Registry& registry = stats::DefaultRegistry();
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
  // The load-aware plugins' metrics sources (one watcher per distinct metricProvider,
  // one client per watcherAddress); outlives the scheduler.
  std::unique_ptr<providers::ProviderSourcePool> sources;
  // The recent decisions (--decisions-capacity; null when 0): written by the scheduler,
  // read by /debug/decisions; outlives both.
  std::unique_ptr<sched::decisions::DecisionRing> decisions;
  std::unique_ptr<sched::Scheduler> scheduler;
  std::unique_ptr<kube::Informer<kube::Node>> node_informer;
  std::unique_ptr<kube::Informer<kube::Pod>> pod_informer;
  // Namespaces, services, replication controllers, replica sets, stateful sets and
  // PodDisruptionBudgets (whichever version is served, stored as
  // kPodDisruptionBudgets): the scheduler's ObjectStore. object_resources[i] is what
  // object_informers[i] feeds.
  std::vector<std::unique_ptr<kube::Informer<kube::SelectorObject>>> object_informers;
  std::vector<kube::SelectorResource> object_resources;
  // After the informers: destroyed first, so no scrape reads a destroyed informer.
  std::unique_ptr<kube::InformerStats> node_informer_stats;
  std::unique_ptr<kube::InformerStats> pod_informer_stats;
  std::vector<std::unique_ptr<kube::InformerStats>> object_informer_stats;
  // PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers,
  // CSIStorageCapacities (in kube::kAllStorageResources order): the scheduler's
  // StorageStore.
  std::vector<std::unique_ptr<kube::Informer<kube::StorageObject>>> storage_informers;
  std::vector<std::unique_ptr<kube::InformerStats>> storage_informer_stats;
  // PodGroups (scheduling.x-k8s.io), only when a profile enables Coscheduling: the
  // scheduler's PodGroupStore, and the thread that writes their status while leading.
  std::unique_ptr<kube::Informer<kube::PodGroup>> pod_group_informer;
  std::unique_ptr<kube::InformerStats> pod_group_informer_stats;
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

  // Stops every informer: all are asked first, then joined, so their watches (each
  // ends at its next stop check, up to about a second) end together, not one by one.
  void StopInformers() {
    if (pod_informer) pod_informer->RequestStop();
    if (node_informer) node_informer->RequestStop();
    for (auto& informer : object_informers) informer->RequestStop();
    for (auto& informer : storage_informers) informer->RequestStop();
    if (pod_group_informer) pod_group_informer->RequestStop();
    if (pod_informer) pod_informer->Stop();
    if (node_informer) node_informer->Stop();
    for (auto& informer : object_informers) informer->Stop();
    for (auto& informer : storage_informers) informer->Stop();
    if (pod_group_informer) pod_group_informer->Stop();
  }
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
  s_->StopInformers();
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
  const config::SchedulerConfig& c = s->config;

  // Stats: every component names its families relative to the scope it gets; these are
  // the only prefixes (docs/metrics.md lists every family /metrics serves).
  stats::RegisterProcessMetrics(s->registry);
  stats::RegisterBuildInfo(s->registry, "trimaran_");
  const stats::Scope rest_client_stats(s->registry, "rest_client_");  // client-go's names
  const stats::Scope trimaran_stats(s->registry, "trimaran_");        // ours
  const sched::StatsScopes sched_stats{
      .upstream = stats::Scope(s->registry, "scheduler_"),  // kube-scheduler's names
      .own = trimaran_stats,
  };

  // Clients.
  kube::LoadOptions load;
  load.kubeconfig_path = c.client_connection.kubeconfig;
  load.master_override = options.master;
  absl::StatusOr<kube::RestConfig> rest_or = kube::LoadRestConfig(load);
  if (!rest_or.ok()) return Annotate(rest_or.status(), "loading the client configuration");
  const kube::RestConfig& rest = *rest_or;
  TRIMARAN_ASSIGN_OR_RETURN(s->client,
                            MakeClient(rest, c.client_connection.qps, c.client_connection.burst,
                                       "trimaran-scheduler", s->clock, rest_client_stats));
  // client-go's defaults (5 QPS, burst 10) are far too low for bursts of events; give the
  // events client the main budget again, separately.
  TRIMARAN_ASSIGN_OR_RETURN(s->events_client,
                            MakeClient(rest, c.client_connection.qps, c.client_connection.burst,
                                       "trimaran-scheduler/events", s->clock, rest_client_stats));
  TRIMARAN_ASSIGN_OR_RETURN(
      s->lease_client,
      MakeClient(rest, 5, 10, "trimaran-scheduler/leader-election", s->clock, rest_client_stats));

  // The Scheduler.
  const sched::Registry plugins = sched::plugins::InTreeRegistry();
  TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                            config::ExpandProfiles(c, plugins));
  if (options.extender) {
    // One profile, no scheduling loop, no leader election: every replica answers.
    TRIMARAN_ASSIGN_OR_RETURN(sched::ProfileConfig profile,
                              SelectExtenderProfile(std::move(profiles), options.extender_profile));
    profiles.clear();
    profiles.push_back(std::move(profile));
    if (s->config.leader_election.leader_elect) {
      Log(Component::kMain)
          .info("extender mode: leader election is off (every replica answers kube-scheduler)");
      s->config.leader_election.leader_elect = false;
    }
  }
  sched::EventRecorderOptions rec;
  const std::string identity = kube::DefaultLeaderIdentity();
  rec.reporting_instance = absl::StrCat("trimaran-scheduler-", identity);
  s->recorder =
      std::make_unique<sched::AsyncEventRecorder>(*s->events_client, s->clock, trimaran_stats, rec);
  providers::ProviderSourcePoolOptions pool_options;
  pool_options.remote_max_response_bytes =
      static_cast<size_t>(options.load_watcher_max_response_bytes);
  s->sources = std::make_unique<providers::ProviderSourcePool>(
      s->clock, trimaran_stats.Child("loadwatcher_"), s->client.get(), pool_options);
  sched::SchedulerOptions so;
  so.load_watcher_sources = s->sources.get();
  if (options.decisions_capacity > 0) {
    s->decisions = std::make_unique<sched::decisions::DecisionRing>(
        static_cast<size_t>(options.decisions_capacity));
    so.decisions = s->decisions.get();
  }
  if (c.leader_election.leader_elect) {
    // The fence: no Binding once the lease may have passed to another replica.
    State* st = s.get();
    so.leading_until = [st] {
      return st->elector ? st->elector->LeadingUntil() : absl::InfinitePast();
    };
    so.fence_stop = s->lost.get_token();
  }
  so.parallelism = c.parallelism;
  so.backoff.initial = absl::Seconds(c.pod_initial_backoff_seconds);
  so.backoff.max = absl::Seconds(c.pod_max_backoff_seconds);
  so.percentage_of_nodes_to_score = c.percentage_of_nodes_to_score;
  so.deterministic_tie_break = options.tie_break == "lowest-name";
  so.assumed_pod_ttl = sched::kDaemonAssumedPodTtl;
  const bool coscheduling = std::any_of(profiles.begin(), profiles.end(), [](const auto& p) {
    const std::string_view name(sched::plugins::Coscheduling::kName.data(),
                                sched::plugins::Coscheduling::kName.size());
    return std::find(p.queue_sort.begin(), p.queue_sort.end(), name) != p.queue_sort.end() ||
           std::find(p.pre_filter.begin(), p.pre_filter.end(), name) != p.pre_filter.end() ||
           std::find(p.permit.begin(), p.permit.end(), name) != p.permit.end();
  });
  TRIMARAN_ASSIGN_OR_RETURN(
      s->scheduler, sched::Scheduler::Create(std::move(profiles), plugins, *s->client, s->clock,
                                             sched_stats, so, s->recorder.get()));

  // Informers -> event handlers.
  sched::Scheduler* sch = s->scheduler.get();
  s->node_informer =
      std::make_unique<kube::Informer<kube::Node>>(kube::NodeListerWatcher(*s->client), s->clock);
  s->node_informer->AddEventHandlers(kube::EventHandlers<kube::Node>{
      .on_add = [sch](const std::shared_ptr<const kube::Node>& n) { sch->OnNodeAdd(n); },
      .on_update = [sch](const std::shared_ptr<const kube::Node>& o,
                         const std::shared_ptr<const kube::Node>& n) { sch->OnNodeUpdate(o, n); },
      .on_delete = [sch](const std::shared_ptr<const kube::Node>& n,
                         bool) { sch->OnNodeDelete(n); },
  });
  s->pod_informer =
      std::make_unique<kube::Informer<kube::Pod>>(kube::PodListerWatcher(*s->client), s->clock);
  if (options.extender) {
    // The extender's cache holds the assigned pods only: pending pods are
    // kube-scheduler's, and nothing pops the queue here.
    s->pod_informer->AddEventHandlers(kube::EventHandlers<kube::Pod>{
        .on_add =
            [sch](const std::shared_ptr<const kube::Pod>& p) {
              if (!p->spec.node_name.empty()) sch->OnPodAdd(p);
            },
        .on_update =
            [sch](const std::shared_ptr<const kube::Pod>& o,
                  const std::shared_ptr<const kube::Pod>& n) {
              if (n->spec.node_name.empty()) return;
              if (o->spec.node_name.empty()) {
                sch->OnPodAdd(n);
              } else {
                sch->OnPodUpdate(o, n);
              }
            },
        .on_delete =
            [sch](const std::shared_ptr<const kube::Pod>& p, bool) {
              if (!p->spec.node_name.empty()) sch->OnPodDelete(p);
            },
    });
  } else {
    s->pod_informer->AddEventHandlers(kube::EventHandlers<kube::Pod>{
        .on_add = [sch](const std::shared_ptr<const kube::Pod>& p) { sch->OnPodAdd(p); },
        .on_update = [sch](const std::shared_ptr<const kube::Pod>& o,
                           const std::shared_ptr<const kube::Pod>& n) { sch->OnPodUpdate(o, n); },
        .on_delete = [sch](const std::shared_ptr<const kube::Pod>& p,
                           bool) { sch->OnPodDelete(p); },
    });
  }

  for (kube::SelectorResource resource : kube::kAllSelectorResources) {
    // One informer for both PodDisruptionBudget versions (DisruptionBudgetListerWatcher).
    if (resource == kube::SelectorResource::kPodDisruptionBudgetsV1beta1) continue;
    auto informer = std::make_unique<kube::Informer<kube::SelectorObject>>(
        resource == kube::SelectorResource::kPodDisruptionBudgets
            ? kube::DisruptionBudgetListerWatcher(*s->client)
            : kube::SelectorObjectListerWatcher(*s->client, resource),
        s->clock);
    informer->AddEventHandlers(kube::EventHandlers<kube::SelectorObject>{
        .on_add =
            [sch, resource](const std::shared_ptr<const kube::SelectorObject>& o) {
              sch->objects().Apply(resource, o);
            },
        .on_update =
            [sch, resource](const std::shared_ptr<const kube::SelectorObject>&,
                            const std::shared_ptr<const kube::SelectorObject>& o) {
              sch->objects().Apply(resource, o);
            },
        .on_delete = [sch, resource](const std::shared_ptr<const kube::SelectorObject>& o,
                                     bool) { sch->objects().Remove(resource, *o); },
    });
    s->object_informer_stats.push_back(std::make_unique<kube::InformerStats>(
        trimaran_stats.Child("informer_"), std::string(kube::PluralName(resource)),
        informer->counters()));
    s->object_informers.push_back(std::move(informer));
    s->object_resources.push_back(resource);
  }
  for (kube::StorageResource resource : kube::kAllStorageResources) {
    // CSIStorageCapacity: v1, else v1beta1, else (1.20) not served: capacity checks off.
    auto informer = std::make_unique<kube::Informer<kube::StorageObject>>(
        resource == kube::StorageResource::kCSIStorageCapacities
            ? kube::StorageCapacityListerWatcher(
                  *s->client, [sch] { sch->storage().SetCapacityTracking(false); })
            : kube::StorageObjectListerWatcher(*s->client, resource),
        s->clock);
    informer->AddEventHandlers(kube::EventHandlers<kube::StorageObject>{
        .on_add =
            [sch](const std::shared_ptr<const kube::StorageObject>& o) { sch->OnStorageAdd(o); },
        .on_update =
            [sch](const std::shared_ptr<const kube::StorageObject>& old_object,
                  const std::shared_ptr<const kube::StorageObject>& o) {
              sch->OnStorageUpdate(old_object, o);
            },
        .on_delete = [sch](const std::shared_ptr<const kube::StorageObject>& o,
                           bool) { sch->OnStorageDelete(o); },
    });
    s->storage_informer_stats.push_back(std::make_unique<kube::InformerStats>(
        trimaran_stats.Child("informer_"), std::string(kube::PluralName(resource)),
        informer->counters()));
    s->storage_informers.push_back(std::move(informer));
  }
  if (coscheduling) {
    State* st = s.get();
    s->pod_group_status = std::make_unique<sched::plugins::PodGroupStatusWriter>(
        sch->pod_groups(), *s->client, s->clock, [st] { return st->LeaderCallOptions(); });
    sched::plugins::PodGroupStatusWriter* writer = s->pod_group_status.get();
    sch->SetPodGroupObserver(
        [writer](const std::string& ns, const std::string& name) { writer->MarkDirty(ns, name); });
    s->pod_group_informer = std::make_unique<kube::Informer<kube::PodGroup>>(
        kube::PodGroupListerWatcher(*s->client), s->clock);
    s->pod_group_informer->AddEventHandlers(kube::EventHandlers<kube::PodGroup>{
        .on_add = [sch](const std::shared_ptr<const kube::PodGroup>& g) { sch->OnPodGroupAdd(g); },
        .on_update =
            [sch](const std::shared_ptr<const kube::PodGroup>&,
                  const std::shared_ptr<const kube::PodGroup>& g) { sch->OnPodGroupUpdate(g); },
        .on_delete = [sch](const std::shared_ptr<const kube::PodGroup>& g,
                           bool) { sch->OnPodGroupDelete(g); },
    });
    s->pod_group_informer_stats = std::make_unique<kube::InformerStats>(
        trimaran_stats.Child("informer_"), "podgroups", s->pod_group_informer->counters());
  }
  s->node_informer_stats = std::make_unique<kube::InformerStats>(
      trimaran_stats.Child("informer_"), "nodes", s->node_informer->counters());
  s->pod_informer_stats = std::make_unique<kube::InformerStats>(
      trimaran_stats.Child("informer_"), "pods", s->pod_informer->counters());
  // kube-scheduler's leader_election_master_status{name}: 1 while this replica schedules.
  stats::Scope(s->registry, "leader_election_")
      .CallbackGaugeFamily("master_status",
                           "1 while this replica is the leader (or runs without leader "
                           "election), 0 otherwise.",
                           {"name"})
      .WithLabels({c.leader_election.resource_name})
      .Set([st = s.get()] { return st->leading.load() ? 1.0 : 0.0; });

  // Health checks: healthz/livez have "ping" (+ the leader-election watchdog); readyz adds
  // informer sync and shutdown.
  TRIMARAN_RETURN_IF_ERROR(s->checks.Add("informer-sync", sched::kReadyz, s->synced.AsCheck()));
  TRIMARAN_RETURN_IF_ERROR(s->checks.Add("shutdown", sched::kReadyz, s->shutdown.AsCheck()));

  if (c.leader_election.leader_elect) {
    kube::LeaderElectionConfig le;
    le.lease_namespace = c.leader_election.resource_namespace;
    le.lease_name = c.leader_election.resource_name;
    le.identity = identity;
    le.lease_duration = c.leader_election.lease_duration;
    le.renew_deadline = c.leader_election.renew_deadline;
    le.retry_period = c.leader_election.retry_period;
    le.release_on_cancel = true;
    State* st = s.get();
    le.on_started_leading = [st](std::stop_token token) {
      Log(Component::kMain).info("became the leader; scheduling");
      st->leading.store(true);
      // The token fires on a loss, or on Stop after st->stop was requested. A loss
      // fences the binds and exits 1 at once (kube-scheduler exits in
      // OnStoppedLeading): shutdown gets kLostLeadershipExitGrace to close cleanly, past
      // it (a hung apiserver call, say) the process ends anyway.
      std::stop_callback on_loss(token, [st] {
        if (st->stop.stop_requested()) return;
        st->lost.request_stop();
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
        st->leadership_lost.store(true);
        st->stop.request_stop();
      });
      st->scheduler->Run(token);
      st->leading.store(false);
    };
    le.on_stopped_leading = [st] {
      st->leading.store(false);
      if (!st->stop.stop_requested()) {
        st->leadership_lost.store(true);
        st->stop.request_stop();
      }
    };
    le.on_new_leader = [](const std::string& id) {
      Log(Component::kMain).info("new leader elected: {}", id);
    };
    TRIMARAN_RETURN_IF_ERROR(kube::ValidateLeaderElectionConfig(le));
    s->elector = std::make_unique<kube::LeaderElector>(*s->lease_client, s->clock, std::move(le));
    kube::LeaderElector* el = s->elector.get();
    const absl::Duration grace = c.leader_election.lease_duration + absl::Seconds(20);
    const Clock* clock = &s->clock;
    // kube-scheduler's leader-election watchdog: a leader whose renewals stalled past the
    // lease (plus a grace period) is unhealthy.
    TRIMARAN_RETURN_IF_ERROR(s->checks.Add(
        "leaderElection", sched::kHealthz | sched::kLivez, [el, grace, clock]() -> absl::Status {
          if (!el->IsLeader()) return absl::OkStatus();
          const absl::Duration since = clock->Now() - el->LastRenew();
          if (since > grace) {
            return absl::UnavailableError(absl::StrCat(
                "failed election to renew leadership on lease for ", absl::FormatDuration(since)));
          }
          return absl::OkStatus();
        }));
  }

  // The admin server.
  if (options.secure_port != 0) {
    sched::AdminServerOptions ao;
    ao.bind_address = options.bind_address;
    ao.port = options.secure_port;
    TRIMARAN_ASSIGN_OR_RETURN(http::ServingCertFiles files, ServingCert(s->options));
    ao.cert_file = files.cert_file;
    ao.key_file = files.key_file;
    // Delegated authentication and authorization: the given kubeconfigs, else the
    // scheduler's own connection, each on a client of its own (reviews are cached 10 s).
    auto review_client =
        [&](const std::string& kubeconfig,
            const char* what) -> absl::StatusOr<std::unique_ptr<kube::RestClient>> {
      kube::RestConfig rc = rest;
      if (!kubeconfig.empty()) {
        kube::LoadOptions lo;
        lo.kubeconfig_path = kubeconfig;
        absl::StatusOr<kube::RestConfig> loaded = kube::LoadRestConfig(lo);
        if (!loaded.ok()) return Annotate(loaded.status(), absl::StrCat("loading --", what));
        rc = *loaded;
      }
      return MakeClient(rc, 50, 100, absl::StrCat("trimaran-scheduler/", what), s->clock,
                        rest_client_stats);
    };
    TRIMARAN_ASSIGN_OR_RETURN(s->authn_client, review_client(options.authentication_kubeconfig,
                                                             "authentication-kubeconfig"));
    TRIMARAN_ASSIGN_OR_RETURN(s->authz_client, review_client(options.authorization_kubeconfig,
                                                             "authorization-kubeconfig"));
    s->authorizer = std::make_unique<sched::DelegatingAuthorizer>(
        s->authn_client.get(), s->authz_client.get(), s->clock,
        sched::DelegatingAuthorizerOptions{.always_allow_paths =
                                               options.authorization_always_allow_paths});
    ao.authorizer = s->authorizer.get();
    ao.tls_min_version = options.tls_min_version;
    const config::SchedulerConfig* cp = &s->config;
    TRIMARAN_ASSIGN_OR_RETURN(s->admin,
                              sched::AdminServer::Create(ao, &s->registry, &s->checks,
                                                         [cp]() -> absl::StatusOr<std::string> {
                                                           return config::WriteConfigJson(*cp);
                                                         }));
    // /readyz?verbose reports leadership (the metric leader_election_master_status too).
    State* st = s.get();
    s->admin->SetReadyzNote([st, cp]() -> std::string {
      const config::LeaderElection& le = cp->leader_election;
      if (!le.leader_elect) return "leader-election: disabled (this replica schedules)";
      return absl::StrCat("leader-election: ", st->leading.load() ? "leading" : "standby",
                          " (lease ", le.resource_namespace, "/", le.resource_name, ")");
    });
    // /debug/decisions: the recent decisions (an empty list when recording is off).
    s->admin->SetDebugDecisionsHandler(
        [st](const http::ServerRequest& req, http::ServerResponse& res) {
          sched::decisions::ServeDecisions(st->decisions.get(), req, res);
        });
    // /debug/cache: the scheduler cache; ?store=pods or ?store=nodes: that informer's
    // store (what a fresh list is compared with).
    s->admin->SetDebugCacheHandler([st](const http::ServerRequest& req) -> std::string {
      const std::string store = std::string(req.Query("store"));
      if (store == "pods") return StoreDump(*st->pod_informer);
      if (store == "nodes") return StoreDump(*st->node_informer);
      for (size_t i = 0; i < st->object_informers.size(); ++i) {
        if (store == kube::PluralName(st->object_resources[i])) {
          return StoreDump(*st->object_informers[i]);
        }
      }
      for (size_t i = 0; i < st->storage_informers.size(); ++i) {
        if (store == kube::PluralName(kube::kAllStorageResources[i])) {
          return StoreDump(*st->storage_informers[i]);
        }
      }
      return st->scheduler->cache().Dump().DebugString();
    });
  }
  if (options.extender) {
    TRIMARAN_RETURN_IF_ERROR(CreateExtender(*s, sched_stats.own));
  }
  return std::unique_ptr<SchedulerApp>(new SchedulerApp(std::move(s)));
}

absl::Status SchedulerApp::CreateExtender(State& s, const stats::Scope& own) {
  const SchedulerOptions& options = s.options;
  sched::Scheduler* sch = s.scheduler.get();
  sched::Framework* fwk = nullptr;
  for (const config::Profile& p : s.config.profiles) {
    fwk = sch->FrameworkFor(p.scheduler_name);
    if (fwk != nullptr) break;
  }
  if (fwk == nullptr) return absl::InternalError("extender: the profile's framework is missing");
  // /bind: nothing without --extender-bind; else pending pods of
  // --extender-bind-scheduler-names, looked up in the pod informer's store.
  sched::extender::BindOptions bind;
  if (options.extender_bind) {
    const kube::Informer<kube::Pod>* informer = s.pod_informer.get();
    bind.client = s.client.get();
    bind.pods = [informer](const std::string& ns,
                           const std::string& name) -> std::shared_ptr<const kube::Pod> {
      return informer->store().Get(absl::StrCat(ns, "/", name));
    };
    bind.scheduler_names = options.extender_bind_scheduler_names;
  }
  s.extender_backend = std::make_unique<sched::extender::FrameworkBackend>(
      *fwk,
      [sch]() -> absl::StatusOr<const sched::NodeInfoLister*> {
        absl::StatusOr<const sched::Snapshot*> snapshot = sch->RefreshSnapshot();
        if (!snapshot.ok()) return snapshot.status();
        return *snapshot;
      },
      std::move(bind));
  sched::HealthChecks* checks = &s.checks;
  s.extender_service = std::make_unique<sched::extender::ExtenderService>(
      *s.extender_backend, s.clock, own.Child("extender_"),
      sched::extender::ExtenderServiceOptions{
          .bind = options.extender_bind,
          .ready = [st = &s] { return st->synced.Get(); },
      });
  http::HttpServerOptions ho;
  ho.name = "extender";
  ho.address = options.extender_bind_address;
  ho.port = options.extender_port;
  if (!options.extender_tls_cert_file.empty()) {
    ho.tls_cert_file = options.extender_tls_cert_file;
    ho.tls_key_file = options.extender_tls_private_key_file;
  } else {
    TRIMARAN_ASSIGN_OR_RETURN(http::ServingCertFiles files, ServingCert(s.options));
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
  TRIMARAN_ASSIGN_OR_RETURN(s.extender_server, http::HttpServer::Create(ho));
  TRIMARAN_RETURN_IF_ERROR(s.extender_service->AddRoutes(*s.extender_server));
  stats::Registry* registry = &s.registry;
  const sched::RequestAuthorizer* authorizer = s.authorizer.get();
  if (authorizer == nullptr) {
    s.extender_authorizer = std::make_unique<sched::DelegatingAuthorizer>(
        s.client.get(), s.client.get(), s.clock,
        sched::DelegatingAuthorizerOptions{.always_allow_paths =
                                               options.authorization_always_allow_paths});
    authorizer = s.extender_authorizer.get();
  }
  TRIMARAN_RETURN_IF_ERROR(s.extender_server->AddRoute(http::Route{
      .path = "/metrics",
      .help = "Prometheus metrics (the same as the secure port's, with the same bearer token "
              "and authorization)",
      .handler =
          [registry, authorizer](const http::ServerRequest& req, http::ServerResponse& res) {
            const sched::AuthDecision decision = authorizer->Check(req);
            if (!decision.allowed()) {
              res.status = decision.status;
              res.body = decision.message;
              return;
            }
            res.content_type = "text/plain; version=0.0.4; charset=utf-8";
            res.body = registry->PrometheusText();
          },
  }));
  for (const char* path : {"/healthz", "/readyz"}) {
    const bool ready = std::string(path) == "/readyz";
    TRIMARAN_RETURN_IF_ERROR(s.extender_server->AddRoute(http::Route{
        .path = path,
        .help = ready ? "ok once the informers synced (the extender answers)" : "ok while alive",
        .handler =
            [checks, ready](const http::ServerRequest&, http::ServerResponse& res) {
              std::string failed;
              for (const sched::HealthChecks::Result& r :
                   checks->Run(ready ? sched::kReadyz : sched::kHealthz, {})) {
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

void SchedulerApp::RequestStop() {
  s_->shutdown.Set(absl::UnavailableError("shutting down"));
  s_->stop.request_stop();
}

int SchedulerApp::Run() {
  State& s = *s_;
  if (s.admin) {
    if (absl::Status st = s.admin->Start(); !st.ok()) {
      Log(Component::kMain).error("cannot serve on the secure port: {}", st);
      return 1;
    }
    Log(Component::kMain)
        .info("serving healthz, readyz, metrics and configz on {}", s.admin->url());
  }
  if (s.extender_server) {
    if (absl::Status st = s.extender_server->Start(); !st.ok()) {
      Log(Component::kMain).error("cannot serve the extender: {}", st);
      return 1;
    }
    Log(Component::kMain)
        .info("serving the scheduler extender protocol on {} (bind {})", s.extender_server->url(),
              s.options.extender_bind ? "on" : "off");
  }
  std::vector<std::string> names;
  for (const config::Profile& p : s.config.profiles) names.push_back(p.scheduler_name);
  Log(Component::kMain)
      .info("starting trimaran-scheduler profiles=[{}] leader_elect={}", absl::StrJoin(names, ","),
            s.config.leader_election.leader_elect);

  // Informers first (nodes, then pods, then namespaces, services and controllers), on
  // every replica: a standby that takes over has a warm cache.
  s.node_informer->Start();
  s.pod_informer->Start();
  for (auto& informer : s.object_informers) informer->Start();
  for (auto& informer : s.storage_informers) informer->Start();
  // PodGroups: their own thread watches the informer's sync (an apiserver without the
  // CRD is survived: pods of a group wait with a clear message until it appears) and,
  // while this replica leads, writes the groups' status every 500 ms.
  std::jthread pod_groups;
  if (s.pod_group_informer) {
    s.pod_group_informer->Start();
    pod_groups = std::jthread([&s](std::stop_token st) {
      const absl::Time deadline = s.clock.Now() + kObjectInformersSyncTimeout;
      bool readable = false;
      bool warned = false;
      while (s.clock.SleepFor(absl::Milliseconds(500), st)) {
        if (!readable && s.pod_group_informer->HasSynced()) {
          readable = true;
          s.scheduler->SetPodGroupsHealth(absl::OkStatus());
          Log(Component::kMain).info("PodGroups synced (Coscheduling)");
        } else if (!readable && !warned && s.clock.Now() >= deadline) {
          warned = true;
          absl::Status why = absl::FailedPreconditionError(
              "PodGroups cannot be listed: is the PodGroup CRD (podgroups.scheduling.x-k8s.io) "
              "installed and may the scheduler list and watch it? "
              "(deploy/components/coscheduling)");
          Log(Component::kMain)
              .warn("{}; pods with the scheduling.x-k8s.io/pod-group label wait", why.message());
          s.scheduler->SetPodGroupsHealth(std::move(why));
        }
        if (s.leading.load()) s.pod_group_status->SyncDirty();
      }
    });
  }
  while (!s.stop.stop_requested()) {
    if (s.node_informer->WaitForSync(absl::Milliseconds(200)) &&
        s.pod_informer->WaitForSync(absl::Milliseconds(200))) {
      break;
    }
  }
  // The other informers only refine InterPodAffinity (namespaceSelector),
  // PodTopologySpread's default constraints and preemption's PodDisruptionBudgets: wait
  // for them a bounded time, so that a missing permission (an older ClusterRole) degrades
  // those features, loudly, instead of stopping scheduling.
  const absl::Time objects_deadline = s.clock.Now() + kObjectInformersSyncTimeout;
  for (size_t i = 0; i < s.object_informers.size() && !s.stop.stop_requested(); ++i) {
    while (!s.stop.stop_requested() &&
           !s.object_informers[i]->WaitForSync(absl::Milliseconds(200))) {
      if (s.clock.Now() >= objects_deadline) break;
    }
    if (!s.stop.stop_requested() && !s.object_informers[i]->HasSynced()) {
      Log(Component::kMain)
          .warn(
              "the {} informer has not synced in {} (does the scheduler's ClusterRole allow "
              "list and watch of {}?); scheduling without them until it does: "
              "namespaceSelector terms, default topology spreading and preemption's "
              "PodDisruptionBudgets see only what it has",
              kube::PluralName(s.object_resources[i]),
              absl::FormatDuration(kObjectInformersSyncTimeout),
              kube::PluralName(s.object_resources[i]));
    }
  }
  // The storage informers feed the volume plugins: the same bounded wait, so that an
  // older ClusterRole degrades volume checks (loudly) rather than stopping scheduling.
  for (size_t i = 0; i < s.storage_informers.size() && !s.stop.stop_requested(); ++i) {
    while (!s.stop.stop_requested() &&
           !s.storage_informers[i]->WaitForSync(absl::Milliseconds(200))) {
      if (s.clock.Now() >= objects_deadline) break;
    }
    if (!s.stop.stop_requested() && !s.storage_informers[i]->HasSynced()) {
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
  if (!s.stop.stop_requested()) {
    s.synced.Set(absl::OkStatus());
    Log(Component::kMain).info("informers synced");
  }

  std::stop_token token = s.stop.get_token();
  if (s.extender_server) {
    // No scheduling loop: answer kube-scheduler until asked to stop.
    s.clock.SleepUntil(absl::InfiniteFuture(), token);
  } else if (s.elector) {
    std::jthread election([&s, token] { s.elector->Run(token); });
    // Wait until asked to stop (signal or lost leadership).
    s.clock.SleepUntil(absl::InfiniteFuture(), token);
    election.join();  // stops scheduling, drains bindings, releases the lease
  } else if (!token.stop_requested()) {
    s.leading.store(true);
    s.scheduler->Run(token);
    s.leading.store(false);
  }
  const absl::Time stopping = absl::Now();
  s.scheduler->Stop();
  const absl::Time scheduler_stopped = absl::Now();
  s.sources->Stop();
  s.StopInformers();
  const absl::Time informers_stopped = absl::Now();
  // Events are best effort: a backlog (a Scheduled event per pod just bound) does not
  // hold the exit (issue 30).
  if (const size_t dropped = s.recorder->FlushFor(kShutdownEventFlush); dropped > 0) {
    Log(Component::kMain).warn("shutdown: {} queued events not written", dropped);
  }
  Log(Component::kMain)
      .info("shutdown: scheduler stopped in {}, informers in {}, events in {}",
            absl::FormatDuration(scheduler_stopped - stopping),
            absl::FormatDuration(informers_stopped - scheduler_stopped),
            absl::FormatDuration(absl::Now() - informers_stopped));
  if (s.admin) s.admin->Stop();
  if (s.extender_server) s.extender_server->Stop();
  if (s.leadership_lost.load()) {
    Log(Component::kMain).error("leaderelection lost");
    return 1;
  }
  Log(Component::kMain).info("stopped");
  return 0;
}

}  // namespace trimaran::cmd
