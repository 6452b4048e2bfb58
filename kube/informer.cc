#include "kube/informer.h"

#include <algorithm>
#include <utility>

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

namespace internal {

Reflector::Reflector(ReflectorTarget& target, ReflectorSource source, const Clock& clock,
                     InformerOptions options)
    : target_(target), source_(std::move(source)), clock_(clock), options_(options) {}

Reflector::~Reflector() { Stop(); }

void Reflector::Start() {
  thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
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

void Reflector::Run(std::stop_token stop) {
  absl::Duration backoff = options_.min_backoff;
  bool need_list = true;
  while (!stop.stop_requested()) {
    if (need_list) {
      absl::Status s = ListAndReplace(stop);
      if (!s.ok()) {
        if (stop.stop_requested()) return;
        counters_.list_errors.fetch_add(1);
        Log(Component::kInformer)
            .warn("list failed resource={} err=\"{}\" retry_in={}", source_.description,
                  s.message(), absl::FormatDuration(backoff));
        clock_.SleepFor(backoff, stop);
        backoff = std::min(backoff * 2, options_.max_backoff);
        continue;
      }
      need_list = false;
    }
    bool gone = false;
    absl::Status s = WatchOnce(stop, &gone);
    if (stop.stop_requested()) return;
    if (gone || s.code() == absl::StatusCode::kAborted) {
      counters_.relists_gone.fetch_add(1);
      Log(Component::kInformer)
          .info("watch resourceVersion too old, re-listing resource={}", source_.description);
      need_list = true;
      continue;
    }
    if (s.ok()) {
      counters_.watch_restarts.fetch_add(1);
      backoff = options_.min_backoff;
      continue;
    }
    counters_.watch_errors.fetch_add(1);
    Log(Component::kInformer)
        .warn("watch failed, reconnecting resource={} err=\"{}\" retry_in={}", source_.description,
              s.message(), absl::FormatDuration(backoff));
    clock_.SleepFor(backoff, stop);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

absl::Status Reflector::ListAndReplace(std::stop_token stop) {
  counters_.lists.fetch_add(1);
  ListOptions opts;
  opts.label_selector = source_.label_selector;
  opts.field_selector = source_.field_selector;
  opts.limit = options_.page_size;
  std::string rv;
  target_.DropListed();
  while (true) {
    if (stop.stop_requested()) return absl::CancelledError("stopped");
    absl::StatusOr<ListMeta> page = target_.ListPage(opts);
    if (!page.ok()) {
      // An expired continue token: start the list again from scratch.
      if (page.status().code() == absl::StatusCode::kAborted && !opts.continue_token.empty()) {
        opts.continue_token.clear();
        target_.DropListed();
        continue;
      }
      return page.status();
    }
    if (rv.empty()) rv = page->resource_version;
    if (page->continue_token.empty()) break;
    opts.continue_token = page->continue_token;
  }
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

absl::Status Reflector::WatchOnce(std::stop_token stop, bool* gone) {
  WatchOptions opts;
  opts.label_selector = source_.label_selector;
  opts.field_selector = source_.field_selector;
  opts.resource_version = LastSyncResourceVersion();
  opts.allow_watch_bookmarks = true;
  opts.timeout = options_.watch_timeout;
  return target_.Watch(
      opts,
      [this, gone](WatchEventType type, const std::string& resource_version,
                   const std::optional<ApiStatus>& error, absl::FunctionRef<void()> apply) {
        return OnEvent(type, resource_version, error, apply, gone);
      },
      stop);
}

bool Reflector::OnEvent(WatchEventType type, const std::string& resource_version,
                        const std::optional<ApiStatus>& error, absl::FunctionRef<void()> apply,
                        bool* gone) {
  counters_.events.fetch_add(1, std::memory_order_relaxed);
  switch (type) {
    case WatchEventType::kBookmark:
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
      *gone = true;
      return false;
    case WatchEventType::kAdded:
    case WatchEventType::kModified:
    case WatchEventType::kDeleted: {
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
