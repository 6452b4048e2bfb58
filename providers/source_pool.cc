#include "providers/source_pool.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/http/curl_transport.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "loadwatcher/grpc_client.h"
#include "loadwatcher/http_client.h"
#include "loadwatcher/in_process_client.h"

namespace trimaran::providers {

// Members are destroyed bottom-up: the threads are joined first, then the client, the
// watcher and the provider (with its transport) go.
struct DefaultSourcePool::InProcessEntry {
  lw::ProviderSpec spec;
  BuiltProvider built;
  std::unique_ptr<lw::Watcher> watcher;
  std::unique_ptr<lw::InProcessClient> client;
  std::jthread resync_thread;
  std::jthread thread;
};

absl::StatusOr<std::vector<prometheus::NodeRef>> ListNodeRefs(kube::Client& client) {
  std::vector<prometheus::NodeRef> refs;
  kube::ListOptions options;
  options.limit = 500;
  while (true) {
    TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList list, client.ListNodes(options));
    for (const kube::Node& node : list.items) {
      prometheus::NodeRef ref;
      ref.name = node.metadata.name;
      for (const kube::NodeAddress& a : node.status.addresses) ref.addresses.push_back(a.address);
      refs.push_back(std::move(ref));
    }
    if (list.metadata.continue_token.empty()) break;
    options.continue_token = list.metadata.continue_token;
  }
  return refs;
}

DefaultSourcePool::DefaultSourcePool(const Clock& clock, stats::Scope scope,
                                     kube::Client* kube_client, SourcePoolOptions options,
                                     ProviderFactory factory)
    : clock_(clock),
      scope_(std::move(scope)),
      kube_client_(kube_client),
      options_(std::move(options)),
      factory_(std::move(factory)),
      remote_transport_(options_.remote_transport) {}

DefaultSourcePool::~DefaultSourcePool() { Stop(); }

lw::ProviderSpec DefaultSourcePool::Normalize(const lw::ProviderSpec& spec) {
  lw::ProviderSpec out = spec;
  if (out.type.empty()) out.type = std::string(lw::kProviderMetricsServer);
  return out;
}

absl::StatusOr<lw::Client*> DefaultSourcePool::InProcess(const lw::ProviderSpec& raw_spec) {
  const lw::ProviderSpec spec = Normalize(raw_spec);
  // Held across the build: a second caller with the same spec must wait and share, and
  // building a provider is cheap (no I/O; the startup check runs on the watcher thread).
  absl::MutexLock lock(&mu_);
  if (stopped_) return absl::FailedPreconditionError("source pool is stopped");
  if (auto it = in_process_.find(spec); it != in_process_.end()) return it->second->client.get();

  absl::StatusOr<BuiltProvider> built;
  if (factory_) {
    built = factory_(spec);
  } else {
    ProviderExtras extras = options_.extras;
    extras.kube_client = kube_client_;
    built = BuildProvider(spec, extras);
  }
  if (!built.ok()) return built.status();
  if (built->provider == nullptr) {
    return absl::InternalError(
        absl::StrCat("provider factory returned no provider for ", spec.type));
  }

  auto entry = std::make_unique<InProcessEntry>();
  entry->spec = spec;
  entry->built = *std::move(built);
  entry->watcher =
      std::make_unique<lw::Watcher>(*entry->built.provider, clock_, scope_, options_.watcher);
  entry->client = std::make_unique<lw::InProcessClient>(*entry->watcher);
  InProcessEntry& ref = *entry;
  lw::Client* client = entry->client.get();
  Log(Component::kLoadWatcher)
      .info("in-process load watcher: provider={} address=\"{}\"", spec.type, spec.address);
  entry->thread = std::jthread([this, &ref](std::stop_token stop) { RunWatcher(ref, stop); });
  in_process_.emplace(spec, std::move(entry));
  return client;
}

void DefaultSourcePool::RunWatcher(InProcessEntry& entry, std::stop_token stop) {
  if (entry.built.prometheus != nullptr && kube_client_ != nullptr) {
    absl::StatusOr<std::vector<prometheus::NodeRef>> nodes = ListNodeRefs(*kube_client_);
    if (!nodes.ok()) {
      Log(Component::kProvider)
          .warn(
              "prometheus: cannot list nodes for series mapping (series are mapped by "
              "label value until the next resync): {}",
              nodes.status());
    } else if (options_.prometheus_startup_check) {
      // Logs its summary itself (warning unless every node has series).
      absl::StatusOr<prometheus::StartupReport> report =
          entry.built.prometheus->StartupCheck(*nodes);
      if (!report.ok()) {
        Log(Component::kProvider).warn("prometheus startup check failed: {}", report.status());
      }
    } else {
      entry.built.prometheus->SetNodes(*nodes);
    }
    if (options_.node_resync_interval > absl::ZeroDuration() && !stop.stop_requested()) {
      // Stops with the watcher thread's token (Stop() requests it).
      entry.resync_thread = std::jthread([this, &entry, stop] { ResyncNodes(entry, stop); });
    }
  }
  entry.watcher->Run(stop);
}

void DefaultSourcePool::ResyncNodes(InProcessEntry& entry, std::stop_token stop) {
  absl::Mutex wait_mu;
  bool cancelled = false;
  std::stop_callback on_stop(stop, [&] {
    absl::MutexLock lock(&wait_mu);
    cancelled = true;
  });
  while (true) {
    {
      absl::MutexLock lock(&wait_mu);
      if (!clock_.AwaitWithDeadline(wait_mu, &cancelled,
                                    clock_.Now() + options_.node_resync_interval)) {
        return;
      }
    }
    absl::StatusOr<std::vector<prometheus::NodeRef>> nodes = ListNodeRefs(*kube_client_);
    if (!nodes.ok()) {
      Log(Component::kProvider).warn("prometheus: node resync failed: {}", nodes.status());
      continue;
    }
    entry.built.prometheus->SetNodes(*nodes);
  }
}

absl::StatusOr<lw::Client*> DefaultSourcePool::Remote(absl::string_view raw_address) {
  std::string address(raw_address);
  absl::MutexLock lock(&mu_);
  if (auto it = remote_.find(address); it != remote_.end()) return it->second.get();

  std::unique_ptr<lw::Client> client;
  if (absl::StartsWith(address, "http://") || absl::StartsWith(address, "https://")) {
    absl::string_view base = address;
    while (absl::ConsumeSuffix(&base, "/")) {
    }
    if (base == "http:/" || base == "https:/" || base == "http:" || base == "https:") {
      return absl::InvalidArgumentError(absl::StrCat("watcherAddress \"", address, "\": no host"));
    }
    if (remote_transport_ == nullptr) {
      http::CurlTransportOptions transport_options;
      transport_options.user_agent = "trimaran-load-watcher-client";
      transport_options.max_idle_handles = 4;
      TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<http::CurlTransport> curl,
                                http::CurlTransport::Create(std::move(transport_options)));
      remote_transport_ = std::move(curl);
    }
    lw::HttpClientOptions http_options;
    http_options.address = std::string(base);
    http_options.timeout = options_.remote_timeout;
    client = std::make_unique<lw::HttpClient>(*remote_transport_, std::move(http_options));
  } else if (absl::StartsWith(address, "grpc://") || absl::StartsWith(address, "dns:///")) {
    lw::GrpcClientOptions grpc_options;
    absl::string_view target = address;
    (void)absl::ConsumePrefix(&target, "grpc://");
    while (absl::ConsumeSuffix(&target, "/")) {
    }
    if (target.empty() || target == "dns://") {
      return absl::InvalidArgumentError(
          absl::StrCat("watcherAddress \"", address, "\": no host:port"));
    }
    grpc_options.target = std::string(target);
    grpc_options.timeout = options_.remote_timeout;
    client = std::make_unique<lw::GrpcClient>(std::move(grpc_options));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "watcherAddress \"", address,
        "\": want http://host:port or https://host:port (REST /watcher), or grpc://host:port "
        "or dns:///host:port (gRPC)"));
  }
  lw::Client* out = client.get();
  remote_.emplace(std::move(address), std::move(client));
  return out;
}

lw::Watcher* DefaultSourcePool::FindWatcher(const lw::ProviderSpec& spec) const {
  absl::MutexLock lock(&mu_);
  auto it = in_process_.find(Normalize(spec));
  return it == in_process_.end() ? nullptr : it->second->watcher.get();
}

size_t DefaultSourcePool::in_process_count() const {
  absl::MutexLock lock(&mu_);
  return in_process_.size();
}

size_t DefaultSourcePool::remote_count() const {
  absl::MutexLock lock(&mu_);
  return remote_.size();
}

void DefaultSourcePool::Stop() {
  std::vector<InProcessEntry*> entries;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    for (auto& [spec, entry] : in_process_) entries.push_back(entry.get());
  }
  // Outside mu_: a watcher thread may be inside a fetch; joining must not block callers
  // of FindWatcher/Remote meanwhile. Entries are never erased, so the pointers hold.
  for (InProcessEntry* entry : entries) entry->thread.request_stop();
  for (InProcessEntry* entry : entries) {
    if (entry->thread.joinable()) entry->thread.join();
    // The resync thread is started by the watcher thread, so it is set once that joined.
    if (entry->resync_thread.joinable()) entry->resync_thread.join();
  }
}

}  // namespace trimaran::providers
