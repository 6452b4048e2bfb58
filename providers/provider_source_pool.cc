#include "providers/provider_source_pool.h"

#include <fstream>
#include <sstream>
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
struct ProviderSourcePool::InProcessEntry {
  lw::ProviderSpec spec;
  BuiltProvider built;
  std::unique_ptr<lw::Watcher> watcher;
  std::unique_ptr<lw::InProcessClient> client;
  std::jthread upkeep_thread;
  std::jthread thread;
};

ProviderSourcePool::ProviderSourcePool(const Clock& clock, stats::Scope scope,
                                       kube::Client* kube_client, ProviderSourcePoolOptions options,
                                       ProviderFactory factory)
    : clock_(clock),
      scope_(std::move(scope)),
      kube_client_(kube_client),
      options_(std::move(options)),
      factory_(std::move(factory)),
      remote_transport_(options_.remote_transport) {}

ProviderSourcePool::~ProviderSourcePool() { Stop(); }

lw::ProviderSpec ProviderSourcePool::Normalize(const lw::ProviderSpec& spec) {
  lw::ProviderSpec out = spec;
  if (out.type.empty()) out.type = std::string(lw::kProviderMetricsServer);
  return out;
}

absl::StatusOr<lw::Client*> ProviderSourcePool::InProcess(const lw::ProviderSpec& raw_spec) {
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

void ProviderSourcePool::RunWatcher(InProcessEntry& entry, std::stop_token stop) {
  const ProviderUpkeep& upkeep = entry.built.upkeep;
  if (upkeep.before_first_fetch) upkeep.before_first_fetch();
  if (upkeep.periodic && upkeep.interval > absl::ZeroDuration() && !stop.stop_requested()) {
    // Stops with the watcher thread's token (Stop() requests it).
    entry.upkeep_thread = std::jthread([this, &upkeep, stop] {
      while (clock_.SleepFor(upkeep.interval, stop)) upkeep.periodic();
    });
  }
  entry.watcher->Run(stop);
}

absl::StatusOr<lw::Client*> ProviderSourcePool::Remote(absl::string_view address) {
  return ConnectRemote(lw::RemoteSpec{.address = std::string(address)});
}

absl::StatusOr<lw::Client*> ProviderSourcePool::ConnectRemote(const lw::RemoteSpec& remote) {
  const std::string& address = remote.address;
  absl::MutexLock lock(&mu_);
  if (auto it = remote_.find(remote); it != remote_.end()) return it->second.get();

  const bool tls = absl::StartsWith(address, "https://") || absl::StartsWith(address, "grpcs://");
  std::string ca_pem;
  if (!remote.ca_file.empty()) {
    if (!tls) {
      return absl::InvalidArgumentError(absl::StrCat("watcherCAFile is set but watcherAddress \"",
                                                     address,
                                                     "\" is not TLS: use https:// or grpcs://"));
    }
    std::ifstream in(remote.ca_file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (!in || content.str().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("watcherCAFile \"", remote.ca_file, "\": cannot read the file"));
    }
    ca_pem = content.str();
  }
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
    http_options.max_body_bytes = options_.remote_max_response_bytes;
    http_options.ca_file = remote.ca_file;
    http_options.token_file = remote.token_file;
    client = std::make_unique<lw::HttpClient>(*remote_transport_, std::move(http_options));
  } else if (absl::StartsWith(address, "grpc://") || absl::StartsWith(address, "grpcs://") ||
             absl::StartsWith(address, "dns:///")) {
    lw::GrpcClientOptions grpc_options;
    absl::string_view target = address;
    (void)absl::ConsumePrefix(&target, "grpc://");
    (void)absl::ConsumePrefix(&target, "grpcs://");
    while (absl::ConsumeSuffix(&target, "/")) {
    }
    if (target.empty() || target == "dns://") {
      return absl::InvalidArgumentError(
          absl::StrCat("watcherAddress \"", address, "\": no host:port"));
    }
    grpc_options.target = std::string(target);
    grpc_options.timeout = options_.remote_timeout;
    grpc_options.max_receive_message_bytes = options_.remote_max_response_bytes;
    grpc_options.token_file = remote.token_file;
    if (tls) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = ca_pem;  // empty: gRPC's default roots
      grpc_options.credentials = grpc::SslCredentials(ssl);
    }
    client = std::make_unique<lw::GrpcClient>(std::move(grpc_options));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "watcherAddress \"", address,
        "\": want http://host:port or https://host:port (REST /watcher), or grpc://host:port, "
        "grpcs://host:port (TLS) or dns:///host:port (gRPC)"));
  }
  lw::Client* out = client.get();
  remote_.emplace(remote, std::move(client));
  return out;
}

lw::Watcher* ProviderSourcePool::FindWatcher(const lw::ProviderSpec& spec) const {
  absl::MutexLock lock(&mu_);
  auto it = in_process_.find(Normalize(spec));
  return it == in_process_.end() ? nullptr : it->second->watcher.get();
}

size_t ProviderSourcePool::in_process_count() const {
  absl::MutexLock lock(&mu_);
  return in_process_.size();
}

size_t ProviderSourcePool::remote_count() const {
  absl::MutexLock lock(&mu_);
  return remote_.size();
}

void ProviderSourcePool::Stop() {
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
    // The upkeep thread is started by the watcher thread, so it is set once that joined.
    if (entry->upkeep_thread.joinable()) entry->upkeep_thread.join();
  }
}

}  // namespace trimaran::providers
