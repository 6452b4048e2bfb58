#include "kube/informer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "absl/strings/numbers.h"
#include "common/logging.h"

namespace trimaran::kube {

ListerWatcher<Pod> PodListerWatcher(Client& client, std::string field_selector,
                                    std::string label_selector) {
  ListerWatcher<Pod> lw;
  lw.list = [&client](const ListOptions& o) { return client.ListPods("", o); };
  lw.watch = [&client](const WatchOptions& o, const WatchHandler<Pod>& h, std::stop_token stop) {
    return client.WatchPods("", o, h, stop);
  };
  lw.field_selector = std::move(field_selector);
  lw.label_selector = std::move(label_selector);
  lw.description = "pods";
  return lw;
}

ListerWatcher<Node> NodeListerWatcher(Client& client, std::string label_selector) {
  ListerWatcher<Node> lw;
  lw.list = [&client](const ListOptions& o) { return client.ListNodes(o); };
  lw.watch = [&client](const WatchOptions& o, const WatchHandler<Node>& h, std::stop_token stop) {
    return client.WatchNodes(o, h, stop);
  };
  lw.label_selector = std::move(label_selector);
  lw.description = "nodes";
  return lw;
}

ListerWatcher<SelectorObject> SelectorObjectListerWatcher(Client& client,
                                                          SelectorResource resource) {
  ListerWatcher<SelectorObject> lw;
  lw.list = [&client, resource](const ListOptions& o) {
    return client.ListSelectorObjects(resource, o);
  };
  lw.watch = [&client, resource](const WatchOptions& o, const WatchHandler<SelectorObject>& h,
                                 std::stop_token stop) {
    return client.WatchSelectorObjects(resource, o, h, stop);
  };
  lw.description = std::string(PluralName(resource));
  return lw;
}

ListerWatcher<SelectorObject> DisruptionBudgetListerWatcher(Client& client) {
  auto version =
      std::make_shared<std::atomic<SelectorResource>>(SelectorResource::kPodDisruptionBudgets);
  ListerWatcher<SelectorObject> lw;
  lw.list = [&client, version](const ListOptions& o) -> absl::StatusOr<SelectorObjectList> {
    absl::StatusOr<SelectorObjectList> list = client.ListSelectorObjects(version->load(), o);
    if (absl::IsNotFound(list.status()) &&
        version->load() == SelectorResource::kPodDisruptionBudgets) {
      version->store(SelectorResource::kPodDisruptionBudgetsV1beta1);
      list = client.ListSelectorObjects(SelectorResource::kPodDisruptionBudgetsV1beta1, o);
    }
    return list;
  };
  lw.watch = [&client, version](const WatchOptions& o, const WatchHandler<SelectorObject>& h,
                                std::stop_token stop) {
    return client.WatchSelectorObjects(version->load(), o, h, stop);
  };
  lw.description = "poddisruptionbudgets";
  return lw;
}

ListerWatcher<StorageObject> StorageObjectListerWatcher(Client& client, StorageResource resource) {
  ListerWatcher<StorageObject> lw;
  lw.list = [&client, resource](const ListOptions& o) {
    return client.ListStorageObjects(resource, o);
  };
  lw.watch = [&client, resource](const WatchOptions& o, const WatchHandler<StorageObject>& h,
                                 std::stop_token stop) {
    return client.WatchStorageObjects(resource, o, h, stop);
  };
  lw.description = std::string(PluralName(resource));
  return lw;
}

ListerWatcher<PodGroup> PodGroupListerWatcher(Client& client) {
  ListerWatcher<PodGroup> lw;
  lw.list = [&client](const ListOptions& o) { return client.ListPodGroups(o); };
  lw.watch = [&client](const WatchOptions& o, const WatchHandler<PodGroup>& h,
                       std::stop_token stop) { return client.WatchPodGroups(o, h, stop); };
  lw.description = "podgroups";
  return lw;
}

ListerWatcher<StorageObject> StorageCapacityListerWatcher(Client& client,
                                                          std::function<void()> on_not_served) {
  struct Shared {
    // kCSIStorageCapacities, then kCSIStorageCapacitiesV1beta1; `not_served` when neither.
    std::atomic<StorageResource> version{StorageResource::kCSIStorageCapacities};
    std::atomic<bool> not_served{false};
    std::function<void()> on_not_served;
  };
  auto shared = std::make_shared<Shared>();
  shared->on_not_served = std::move(on_not_served);
  ListerWatcher<StorageObject> lw;
  lw.list = [&client, shared](const ListOptions& o) -> absl::StatusOr<StorageObjectList> {
    if (shared->not_served.load()) return StorageObjectList{};
    absl::StatusOr<StorageObjectList> list = client.ListStorageObjects(shared->version.load(), o);
    if (absl::IsNotFound(list.status()) &&
        shared->version.load() == StorageResource::kCSIStorageCapacities) {
      shared->version.store(StorageResource::kCSIStorageCapacitiesV1beta1);
      list = client.ListStorageObjects(StorageResource::kCSIStorageCapacitiesV1beta1, o);
    }
    if (absl::IsNotFound(list.status()) && !shared->not_served.exchange(true)) {
      Log(Component::kInformer)
          .info(
              "csistoragecapacities are not served (neither storage.k8s.io/v1 nor v1beta1: {}); "
              "VolumeBinding provisions without capacity checks, as kube-scheduler does with "
              "storage capacity tracking off",
              list.status().message());
      if (shared->on_not_served) shared->on_not_served();
      return StorageObjectList{};
    }
    return list;
  };
  lw.watch = [&client, shared](const WatchOptions& o, const WatchHandler<StorageObject>& h,
                               std::stop_token stop) -> absl::Status {
    if (shared->not_served.load()) {
      // Nothing to watch: wait for the stop, so the reflector neither relists nor retries.
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, stop, [] { return false; });
      return absl::OkStatus();
    }
    return client.WatchStorageObjects(shared->version.load(), o, h, stop);
  };
  lw.description = "csistoragecapacities";
  return lw;
}

namespace internal {

Reflector::Reflector(ReflectorTarget& target, ReflectorSource source, const Clock& clock,
                     InformerOptions options)
    : target_(target),
      source_(std::move(source)),
      clock_(clock),
      options_(options),
      rng_(std::random_device{}()) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
}

void Reflector::RequestStop() {
  if (thread_.joinable()) thread_.request_stop();
}

void Reflector::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

bool Reflector::WaitForSync(absl::Duration timeout) const {
  absl::MutexLock lock(&sync_mu_);
  return sync_mu_.AwaitWithTimeout(
      absl::Condition(
          +[](const std::atomic<bool>* s) { return s->load(std::memory_order_acquire); }, &synced_),
      timeout);
}

std::string Reflector::LastSyncResourceVersion() const {
  absl::MutexLock lock(&rv_mu_);
  return resource_version_;
}

void Reflector::SetResourceVersion(const std::string& rv) {
  if (rv.empty()) return;
  absl::MutexLock lock(&rv_mu_);
  resource_version_ = rv;
}

void Reflector::CountRegression(const std::string& key, const std::string& from,
                                const std::string& to) {
  counters_.resource_version_regressions.fetch_add(1, std::memory_order_relaxed);
  Log(Component::kInformer)
      .warn("object went back to an older resourceVersion resource={} key={} from={} to={}",
            source_.description, key, from, to);
}

absl::Duration Reflector::NextBackoff() {
  const absl::Time now = clock_.Now();
  if (backoff_ == absl::ZeroDuration() || now - last_backoff_ > options_.backoff_reset) {
    backoff_ = options_.min_backoff;
  } else {
    backoff_ = std::min(backoff_ * 2, options_.max_backoff);
  }
  last_backoff_ = now;
  if (options_.backoff_jitter <= 0) return backoff_;
  std::uniform_real_distribution<double> factor(1.0, 1.0 + options_.backoff_jitter);
  return backoff_ * factor(rng_);
}

void Reflector::Run(std::stop_token stop) {
  bool need_list = true;
  while (!stop.stop_requested()) {
    if (need_list) {
      absl::Status s = ListAndReplace(stop);
      if (!s.ok()) {
        if (stop.stop_requested()) return;
        counters_.list_errors.fetch_add(1);
        const absl::Duration wait = NextBackoff();
        Log(Component::kInformer)
            .warn("list failed resource={} err=\"{}\" retry_in={}", source_.description,
                  s.message(), absl::FormatDuration(wait));
        clock_.SleepFor(wait, stop);
        continue;
      }
      need_list = false;
    }
    const absl::Time start = clock_.Now();
    WatchResult w = WatchOnce(stop);
    if (stop.stop_requested()) return;
    if (w.gone || w.status.code() == absl::StatusCode::kAborted) {
      counters_.relists_gone.fetch_add(1);
      Log(Component::kInformer)
          .info("watch resourceVersion too old, re-listing resource={}", source_.description);
      need_list = true;
      continue;
    }
    if (!w.status.ok()) counters_.watch_errors.fetch_add(1);
    const absl::Duration lasted = clock_.Now() - start;
    if (w.events > 0 || lasted >= options_.min_watch_duration) {
      // A watch that did its job (or lived long enough): resume at once.
      if (w.status.ok()) {
        counters_.watch_restarts.fetch_add(1);
      } else {
        Log(Component::kInformer)
            .warn("watch failed, reconnecting resource={} err=\"{}\"", source_.description,
                  w.status.message());
      }
      continue;
    }
    // A very short watch (client-go: "watch lasted less than a second and no items
    // received"): back off, and start the next watch no sooner than min_watch_duration
    // after this one started. An empty 200 re-lists (only a list makes progress through
    // whatever swallows the events); an error resumes the watch.
    counters_.short_watches.fetch_add(1);
    const absl::Time next =
        std::max(clock_.Now() + NextBackoff(), start + options_.min_watch_duration);
    need_list = w.status.ok();
    Log(Component::kInformer)
        .warn("very short watch resource={} lasted={} events=0 err=\"{}\" then={} in={}",
              source_.description, absl::FormatDuration(lasted),
              w.status.ok() ? "none" : w.status.message(), need_list ? "re-list" : "watch",
              absl::FormatDuration(next - clock_.Now()));
    clock_.SleepUntil(next, stop);
  }
}

absl::Status Reflector::ListAndReplace(std::stop_token stop) {
  counters_.lists.fetch_add(1);
  ListOptions opts;
  opts.label_selector = source_.label_selector;
  opts.field_selector = source_.field_selector;
  opts.limit = options_.page_size;
  // A re-list tries the apiserver's watch cache first (resourceVersion "0", unpaged: no
  // etcd read, no wait) and takes its answer when it is not older than the last version
  // seen, so no object can go back in time.
  if (const std::string last = LastSyncResourceVersion(); !last.empty()) {
    ListOptions cached = opts;
    cached.limit = 0;
    cached.resource_version = "0";
    target_.DropListed();
    absl::StatusOr<ListMeta> list = target_.ListPage(cached);
    if (stop.stop_requested()) return absl::CancelledError("stopped");
    uint64_t seen = 0;
    uint64_t got = 0;
    if (list.ok() && list->continue_token.empty() && absl::SimpleAtoi(last, &seen) &&
        absl::SimpleAtoi(list->resource_version, &got) && got >= seen) {
      return Replace(list->resource_version);
    }
    Log(Component::kInformer)
        .debug(
            "re-list from the watch cache not taken, reading consistently resource={} "
            "last={} cache={}",
            source_.description, last,
            list.ok() ? list->resource_version : std::string(list.status().message()));
  }
  // The resourceVersion of the list being read: its first page's (every page of a
  // paged list carries the same snapshot). A restarted list has a snapshot of its own.
  std::string rv;
  target_.DropListed();
  while (true) {
    if (stop.stop_requested()) return absl::CancelledError("stopped");
    absl::StatusOr<ListMeta> page = target_.ListPage(opts);
    if (!page.ok()) {
      // An expired continue token (410: etcd compacted past the list's snapshot): start
      // the list again from scratch, with a snapshot (and a resourceVersion) of its own.
      if (page.status().code() == absl::StatusCode::kAborted && !opts.continue_token.empty()) {
        counters_.list_restarts.fetch_add(1);
        Log(Component::kInformer)
            .info("list continue token expired, listing again resource={} err=\"{}\"",
                  source_.description, page.status().message());
        opts.continue_token.clear();
        rv.clear();
        target_.DropListed();
        continue;
      }
      return page.status();
    }
    if (rv.empty()) rv = page->resource_version;
    if (page->continue_token.empty()) break;
    opts.continue_token = page->continue_token;
  }
  return Replace(rv);
}

absl::Status Reflector::Replace(const std::string& rv) {
  target_.ReplaceWithListed();
  SetResourceVersion(rv);
  {
    absl::MutexLock lock(&sync_mu_);
    synced_.store(true, std::memory_order_release);
  }
  Log(Component::kInformer)
      .info("synced resource={} objects={} resourceVersion={}", source_.description,
            target_.StoreSize(), rv);
  return absl::OkStatus();
}

Reflector::WatchResult Reflector::WatchOnce(std::stop_token stop) {
  WatchOptions opts;
  opts.label_selector = source_.label_selector;
  opts.field_selector = source_.field_selector;
  opts.resource_version = LastSyncResourceVersion();
  opts.allow_watch_bookmarks = true;
  opts.timeout = options_.watch_timeout;
  WatchResult result;
  result.status = target_.Watch(
      opts,
      [this, &result](WatchEventType type, const std::string& resource_version,
                      const std::optional<ApiStatus>& error, absl::FunctionRef<void()> apply) {
        return OnEvent(type, resource_version, error, apply, &result);
      },
      stop);
  return result;
}

bool Reflector::OnEvent(WatchEventType type, const std::string& resource_version,
                        const std::optional<ApiStatus>& error, absl::FunctionRef<void()> apply,
                        WatchResult* result) {
  counters_.events.fetch_add(1, std::memory_order_relaxed);
  switch (type) {
    case WatchEventType::kBookmark:
      ++result->events;
      SetResourceVersion(resource_version);
      return true;
    case WatchEventType::kError:
      if (!error || error->code != 410) {
        counters_.watch_errors.fetch_add(1);
        Log(Component::kInformer)
            .warn("watch error event resource={} code={} message=\"{}\"", source_.description,
                  error ? error->code : 0, error ? error->message : "");
      }
      // Expired/unknown errors are treated as "re-list" too, which is always safe.
      result->gone = true;
      return false;
    case WatchEventType::kAdded:
    case WatchEventType::kModified:
    case WatchEventType::kDeleted: {
      ++result->events;
      // Copied first: `apply` moves the object (and its resourceVersion) into the store.
      std::string rv = resource_version;
      apply();
      SetResourceVersion(rv);
      return true;
    }
  }
  return true;
}

void Reflector::ReportUndecodable(const DecodeFailure& failure) {
  counters_.decode_errors.fetch_add(1, std::memory_order_relaxed);
  std::string key = failure.Key();
  if (key.empty()) key = failure.position.empty() ? "unknown" : failure.position;
  // Bounded: a flood of distinct bad objects logs again after this many.
  constexpr size_t kMaxRemembered = 10000;
  if (reported_undecodable_.size() >= kMaxRemembered) reported_undecodable_.clear();
  if (!reported_undecodable_.insert(key).second) return;
  Log(Component::kInformer)
      .warn("skipping object that does not decode resource={} key={} resourceVersion={} err=\"{}\"",
            source_.description, key, failure.resource_version, failure.status.message());
}

}  // namespace internal

}  // namespace trimaran::kube
