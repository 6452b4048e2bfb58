#pragma once
// Informer<T>: list + watch of one resource kept in a Store<T>, with event handlers
// (client-go's Reflector + SharedIndexInformer, without the shared-processor queues).
//
// Lifecycle of the reflector loop (on its own std::jthread):
//
//   List (paged, `page_size`) -> Replace store (diff -> add/update/delete handlers)
//     -> HasSynced() = true
//     -> Watch from the list's resourceVersion, applying each event to the store and
//        calling handlers; BOOKMARK only moves the resume point.
//   Watch ends normally (server timeout)      -> watch again from the last version.
//   Watch fails (connection cut, 5xx, truncated stream, malformed event)
//                                             -> counted, backoff, watch again from the
//                                                last version (nothing is missed: the
//                                                apiserver replays from there).
//   410 Gone / "too old resource version"     -> counted, re-list (Replace computes the
//                                                diff, so handlers see exactly the
//                                                changes they missed; objects deleted
//                                                meanwhile are reported with
//                                                final_state_unknown = true, the
//                                                tombstone of client-go).
//
// Handlers run on the reflector thread, in event order, and must not block for long.
// Events of one key are delivered in order; Store reads are always safe.
//
// Thread-safety: Start/Stop from one owner thread; everything else is safe for
// concurrent use.

#include <atomic>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/logging.h"
#include "kube/api/list.h"
#include "kube/api/watch_event.h"
#include "kube/client.h"
#include "kube/store.h"

namespace trimaran::kube {

template <typename T>
struct ListerWatcher {
  std::function<absl::StatusOr<List<T>>(const ListOptions&)> list;
  std::function<absl::Status(const WatchOptions&, const WatchHandler<T>&, std::stop_token)> watch;
  std::string label_selector;
  std::string field_selector;
  std::string description;  // "pods", "nodes": for logs
};

// All non-terminal pods in every namespace (kube-scheduler's pod informer).
inline constexpr char kNonTerminalPodsSelector[] =
    "status.phase!=Succeeded,status.phase!=Failed";
ListerWatcher<Pod> PodListerWatcher(Client& client,
                                    std::string field_selector = kNonTerminalPodsSelector,
                                    std::string label_selector = "");
ListerWatcher<Node> NodeListerWatcher(Client& client, std::string label_selector = "");

template <typename T>
struct EventHandlers {
  std::function<void(const std::shared_ptr<const T>&)> on_add;
  std::function<void(const std::shared_ptr<const T>& old_obj,
                     const std::shared_ptr<const T>& new_obj)>
      on_update;
  // `final_state_unknown`: the delete was inferred by a re-list; `obj` is the last
  // state this informer saw.
  std::function<void(const std::shared_ptr<const T>& obj, bool final_state_unknown)> on_delete;
};

struct InformerOptions {
  int64_t page_size = 500;
  absl::Duration min_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(30);
  absl::Duration watch_timeout = absl::Minutes(5);
};

struct InformerCounters {
  std::atomic<uint64_t> lists{0};
  std::atomic<uint64_t> relists_gone{0};      // 410 Gone
  std::atomic<uint64_t> watch_restarts{0};    // normal end of a watch
  std::atomic<uint64_t> watch_errors{0};      // failed watches (reconnects)
  std::atomic<uint64_t> list_errors{0};
  std::atomic<uint64_t> events{0};
};

template <typename T>
class Informer {
 public:
  Informer(ListerWatcher<T> lw, const Clock& clock, InformerOptions options = {})
      : lw_(std::move(lw)), clock_(clock), options_(options) {}
  ~Informer() { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  Store<T>& store() { return store_; }
  const Store<T>& store() const { return store_; }

  // Handlers must be added before Start.
  void AddEventHandlers(EventHandlers<T> handlers) { handlers_.push_back(std::move(handlers)); }

  void Start() {
    thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
  }
  void Stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

  bool HasSynced() const { return synced_.load(std::memory_order_acquire); }
  // Blocks until synced, `timeout` passes (false) or never with InfiniteDuration.
  bool WaitForSync(absl::Duration timeout) const {
    absl::MutexLock lock(&sync_mu_);
    return sync_mu_.AwaitWithTimeout(
        absl::Condition(
            +[](const std::atomic<bool>* s) { return s->load(std::memory_order_acquire); },
            &synced_),
        timeout);
  }
  std::string LastSyncResourceVersion() const {
    absl::MutexLock lock(&rv_mu_);
    return resource_version_;
  }
  const InformerCounters& counters() const { return counters_; }

 private:
  void Run(std::stop_token stop) {
    absl::Duration backoff = options_.min_backoff;
    bool need_list = true;
    while (!stop.stop_requested()) {
      if (need_list) {
        absl::Status s = ListAndReplace(stop);
        if (!s.ok()) {
          if (stop.stop_requested()) return;
          counters_.list_errors.fetch_add(1);
          Log(Component::kInformer)
              .warn("list failed resource={} err=\"{}\" retry_in={}", lw_.description, s.message(),
                    absl::FormatDuration(backoff));
          Sleep(backoff, stop);
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
            .info("watch resourceVersion too old, re-listing resource={}", lw_.description);
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
          .warn("watch failed, reconnecting resource={} err=\"{}\" retry_in={}", lw_.description,
                s.message(), absl::FormatDuration(backoff));
      Sleep(backoff, stop);
      backoff = std::min(backoff * 2, options_.max_backoff);
    }
  }

  absl::Status ListAndReplace(std::stop_token stop) {
    counters_.lists.fetch_add(1);
    ListOptions opts;
    opts.label_selector = lw_.label_selector;
    opts.field_selector = lw_.field_selector;
    opts.limit = options_.page_size;
    std::vector<std::shared_ptr<const T>> items;
    std::string rv;
    while (true) {
      if (stop.stop_requested()) return absl::CancelledError("stopped");
      absl::StatusOr<List<T>> page = lw_.list(opts);
      if (!page.ok()) {
        // An expired continue token: start the list again from scratch.
        if (page.status().code() == absl::StatusCode::kAborted && !opts.continue_token.empty()) {
          opts.continue_token.clear();
          items.clear();
          continue;
        }
        return page.status();
      }
      for (auto& item : page->items) items.push_back(std::make_shared<const T>(std::move(item)));
      if (rv.empty()) rv = page->metadata.resource_version;
      if (page->metadata.continue_token.empty()) break;
      opts.continue_token = page->metadata.continue_token;
    }
    Replace(std::move(items));
    SetResourceVersion(rv);
    {
      absl::MutexLock lock(&sync_mu_);
      synced_.store(true, std::memory_order_release);
    }
    Log(Component::kInformer)
        .info("synced resource={} objects={} resourceVersion={}", lw_.description, store_.Size(),
              rv);
    return absl::OkStatus();
  }

  void Replace(std::vector<std::shared_ptr<const T>> items) {
    std::set<std::string> seen;
    for (auto& obj : items) {
      std::string key = ObjectKey(*obj);
      seen.insert(key);
      auto old = store_.Get(key);
      if (old && old->metadata.resource_version == obj->metadata.resource_version) continue;
      store_.Upsert(obj);
      if (old) {
        for (auto& h : handlers_) if (h.on_update) h.on_update(old, obj);
      } else {
        for (auto& h : handlers_) if (h.on_add) h.on_add(obj);
      }
    }
    for (const auto& key : store_.Keys()) {
      if (seen.count(key)) continue;
      auto old = store_.Remove(key);
      if (!old) continue;
      for (auto& h : handlers_) if (h.on_delete) h.on_delete(old, /*final_state_unknown=*/true);
    }
  }

  absl::Status WatchOnce(std::stop_token stop, bool* gone) {
    WatchOptions opts;
    opts.label_selector = lw_.label_selector;
    opts.field_selector = lw_.field_selector;
    opts.resource_version = LastSyncResourceVersion();
    opts.allow_watch_bookmarks = true;
    opts.timeout = options_.watch_timeout;
    return lw_.watch(
        opts,
        [&](WatchEvent<T>&& ev) -> bool {
          counters_.events.fetch_add(1, std::memory_order_relaxed);
          switch (ev.type) {
            case WatchEventType::kBookmark:
              SetResourceVersion(ev.object.metadata.resource_version);
              return true;
            case WatchEventType::kError:
              if (ev.error && ev.error->code == 410) {
                *gone = true;
              } else {
                counters_.watch_errors.fetch_add(1);
                Log(Component::kInformer)
                    .warn("watch error event resource={} code={} message=\"{}\"",
                          lw_.description, ev.error ? ev.error->code : 0,
                          ev.error ? ev.error->message : "");
                // Expired/unknown errors are treated as "re-list" too, which is always safe.
                *gone = true;
              }
              return false;
            case WatchEventType::kAdded:
            case WatchEventType::kModified: {
              std::string rv = ev.object.metadata.resource_version;
              auto obj = std::make_shared<const T>(std::move(ev.object));
              auto old = store_.Upsert(obj);
              if (old) {
                for (auto& h : handlers_) if (h.on_update) h.on_update(old, obj);
              } else {
                for (auto& h : handlers_) if (h.on_add) h.on_add(obj);
              }
              SetResourceVersion(rv);
              return true;
            }
            case WatchEventType::kDeleted: {
              std::string rv = ev.object.metadata.resource_version;
              store_.Remove(ObjectKey(ev.object));
              // The event carries the object's final state.
              auto last = std::make_shared<const T>(std::move(ev.object));
              for (auto& h : handlers_) if (h.on_delete) h.on_delete(last, false);
              SetResourceVersion(rv);
              return true;
            }
          }
          return true;
        },
        stop);
  }

  void SetResourceVersion(const std::string& rv) {
    if (rv.empty()) return;
    absl::MutexLock lock(&rv_mu_);
    resource_version_ = rv;
  }

  void Sleep(absl::Duration d, std::stop_token stop) {
    absl::Mutex mu;
    bool cancelled = false;
    std::stop_callback cb(stop, [&] {
      absl::MutexLock lock(&mu);
      cancelled = true;
    });
    absl::MutexLock lock(&mu);
    if (!cancelled) clock_.AwaitWithDeadline(mu, &cancelled, clock_.Now() + d);
  }

  ListerWatcher<T> lw_;
  const Clock& clock_;
  const InformerOptions options_;
  Store<T> store_;
  std::vector<EventHandlers<T>> handlers_;
  InformerCounters counters_;
  mutable absl::Mutex sync_mu_;
  std::atomic<bool> synced_{false};
  mutable absl::Mutex rv_mu_;
  std::string resource_version_ ABSL_GUARDED_BY(rv_mu_);
  std::jthread thread_;
};

}  // namespace trimaran::kube
