#pragma once
// ProviderSourcePool: the production lw::SourcePool (loadwatcher/source_pool.h, the
// interface the load-aware plugins see) that trimaran-scheduler hands to the plugins and
// the load-watcher daemon uses for its one watcher. It builds providers through the
// provider registry (providers/registry.h) and knows nothing about any one provider.
//
//   InProcess(spec)   once per distinct ProviderSpec: builds the provider
//                     (BuildProvider, or the factory seam), a lw::Watcher over it and an
//                     lw::InProcessClient, and runs Watcher::Run on its own std::jthread.
//                     That thread first runs the provider's upkeep `before_first_fetch`
//                     and, when the upkeep has a `periodic` part, starts a second thread
//                     that runs it every `interval` until the watcher stops (Prometheus
//                     with a kube client: list the nodes and run the startup check, then
//                     re-list them so nodes that join later are mapped; see registry.h).
//                     Later calls with an equal spec return the same Client.
//   Remote(address)   once per distinct address: "http://..." / "https://..." -> an
//                     lw::HttpClient (paypal REST /watcher; a trailing "/" is dropped),
//                     "grpc://host:port" -> an lw::GrpcClient to host:port,
//                     "grpcs://host:port" -> the same over TLS,
//                     "dns:///host:port" -> an lw::GrpcClient to that target as given.
//                     Anything else is InvalidArgument.
//   ConnectRemote(r)  the same, once per distinct RemoteSpec, with r.ca_file verifying
//                     an https:// or grpcs:// watcher (InvalidArgument with any other
//                     scheme, or when the file cannot be read) and r.token_file's bearer
//                     token on every call.
//   Stop()            requests stop on every watcher thread and joins them (the
//                     destructor calls it). Clients stay valid and keep answering
//                     with the last data; InProcess after Stop is FailedPrecondition.
//
// Stats: every watcher registers in the Scope given (watcher.h; the programs pass
// "trimaran_loadwatcher_").
// Watchers of the same provider type share series (the Registry returns the existing
// family), and the age gauge follows the newest watcher; one watcher per process is
// the common case.
//
// Thread-safety: InProcess, Remote, FindWatcher and the counts are safe for concurrent
// use. Stop/destruction must not race with other calls.
// Ownership: the pool owns providers, watchers, clients and threads; it borrows the
// clock, the Scope's registry and the kube client, which must outlive it.

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/http/transport.h"
#include "common/stats/stats.h"
#include "kube/client.h"
#include "loadwatcher/client.h"
#include "loadwatcher/source_pool.h"
#include "loadwatcher/watcher.h"
#include "providers/registry.h"

namespace trimaran::providers {

struct ProviderSourcePoolOptions {
  lw::WatcherOptions watcher{};
  // Provider settings not in a ProviderSpec (including each provider's upkeep
  // settings). Its kube_client is ignored: the pool passes its own.
  ProviderExtras extras{};
  // Remote HTTP clients: the request timeout (upstream's 55 s).
  absl::Duration remote_timeout = absl::Seconds(55);
  // Remote clients (HTTP and gRPC): the largest answer accepted (HttpClientOptions::
  // max_body_bytes, GrpcClientOptions::max_receive_message_bytes); larger ones fail with
  // ResourceExhausted, and the plugins keep their previous metrics or fall back.
  size_t remote_max_response_bytes = lw::kDefaultMaxResponseBytes;
  // Remote HTTP clients send through this; null: a CurlTransport made on first use.
  std::shared_ptr<http::HttpTransport> remote_transport{};
};

// Builds a provider for a spec (tests inject fakes). Null: BuildProvider(spec, extras).
using ProviderFactory = std::function<absl::StatusOr<BuiltProvider>(const lw::ProviderSpec&)>;

class ProviderSourcePool final : public lw::SourcePool {
 public:
  ProviderSourcePool(const Clock& clock, stats::Scope scope, kube::Client* kube_client,
                     ProviderSourcePoolOptions options = {}, ProviderFactory factory = {});
  ~ProviderSourcePool() override;
  ProviderSourcePool(const ProviderSourcePool&) = delete;
  ProviderSourcePool& operator=(const ProviderSourcePool&) = delete;

  absl::StatusOr<lw::Client*> InProcess(const lw::ProviderSpec& spec) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<lw::Client*> Remote(absl::string_view address) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<lw::Client*> ConnectRemote(const lw::RemoteSpec& remote) override
      ABSL_LOCKS_EXCLUDED(mu_);

  // The watcher InProcess(spec) created, or null. (The daemon serves it over REST and
  // gRPC.) Specs are compared after the type is canonicalised ("" = metrics-server).
  lw::Watcher* FindWatcher(const lw::ProviderSpec& spec) const ABSL_LOCKS_EXCLUDED(mu_);

  size_t in_process_count() const ABSL_LOCKS_EXCLUDED(mu_);
  size_t remote_count() const ABSL_LOCKS_EXCLUDED(mu_);

  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct InProcessEntry;

  void RunWatcher(InProcessEntry& entry, std::stop_token stop);
  static lw::ProviderSpec Normalize(const lw::ProviderSpec& spec);

  const Clock& clock_;
  const stats::Scope scope_;
  kube::Client* const kube_client_;
  const ProviderSourcePoolOptions options_;
  const ProviderFactory factory_;

  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<http::HttpTransport> remote_transport_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<lw::ProviderSpec, std::unique_ptr<InProcessEntry>> in_process_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<lw::RemoteSpec, std::unique_ptr<lw::Client>> remote_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::providers
