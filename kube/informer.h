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
//   Watch ends (server timeout, connection cut, 5xx, truncated stream, malformed event)
//   after at least `min_watch_duration` or after delivering an event
//                                             -> watch again at once from the last
//                                                version (nothing is missed: the
//                                                apiserver replays from there); an error
//                                                is counted.
//   Watch ends sooner with no event (a "very short watch", client-go's name; counted)
//     - with an error (connection refused, 5xx, cut at once)
//                                             -> backoff, watch again from the last
//                                                version;
//     - normally (200 with an empty body: something between us and the apiserver
//       answers watches without events)       -> backoff, re-list (as client-go: only a
//                                                list makes progress then).
//     The next watch starts no sooner than `min_watch_duration` after this one started:
//     at most one such watch per second per informer.
//   An object that does not decode            -> skipped, never retried: counted
//     (decode_errors), logged once per key at warning. In a LIST it is left out, so
//     it is absent from the store (a last good copy is deleted by the re-list's diff,
//     final_state_unknown). In a watch the resume point still moves past the event
//     (its metadata.resourceVersion is read even when the rest is bad); an ADDED or
//     MODIFIED applies nothing, so a MODIFIED keeps the last good copy in the store
//     (stale until the object decodes again or a re-list drops it); a DELETED whose
//     name is readable removes the object (final_state_unknown); an ERROR re-lists.
//   410 Gone / "too old resource version"     -> counted, re-list (Replace computes the
//                                                diff, so handlers see exactly the
//                                                changes they missed; objects deleted
//                                                meanwhile are reported with
//                                                final_state_unknown = true, the
//                                                tombstone of client-go).
//   List fails                                -> counted, backoff, list again.
//   A continue token expires (410 on a page after the first: etcd compacted past the
//   list's snapshot)                          -> counted, the list starts again from
//                                                scratch; the watch then starts from the
//                                                resourceVersion of the list that
//                                                completed, never the abandoned one's.
//
// The first list is a consistent read (resourceVersion "", from etcd) in pages of
// `page_size`. A re-list first asks the apiserver's watch cache (resourceVersion "0",
// unpaged: no etcd read, no wait) and takes the answer when its resourceVersion is not
// older than the last one seen (so nothing goes back in time); otherwise (an older
// cache, an error, a paged answer) it reads consistently as the first list. client-go
// asks for "at least as fresh as the last version" instead, which kube-apiserver 1.20
// answers for a quiet resource (nodes: its cache stays at the last node change, below
// the etcd revision a consistent list returns) with 504 "Too large resource version"
// after 3 s.
//
// Backoff (client-go's reflector figures): 800 ms, doubling up to 30 s, each wait
// stretched by a random factor in [1, 1 + backoff_jitter) (so [30 s, 60 s) at the cap);
// back to 800 ms when no backoff started for `backoff_reset` (2 minutes). Waits are on
// the Clock, cancelled by Stop.
//
// Resource versions only move forward: an event or a re-listed object whose (numeric)
// resourceVersion is older than the stored object's is counted in
// `resource_version_regressions` and logged (a debug check; it should stay 0).
//
// Handlers run on the reflector thread, in event order, and must not block for long.
// Events of one key are delivered in order; Store reads are always safe.
//
// The loop itself is not a template: internal::Reflector (informer.cc) runs it over the
// small typed interface internal::ReflectorTarget, which Informer<T> implements with its
// ListerWatcher, Store and handlers.
//
// Thread-safety: Start/Stop from one owner thread; everything else is safe for
// concurrent use.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/api/api_status.h"
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
inline constexpr char kNonTerminalPodsSelector[] = "status.phase!=Succeeded,status.phase!=Failed";
ListerWatcher<Pod> PodListerWatcher(Client& client,
                                    std::string field_selector = kNonTerminalPodsSelector,
                                    std::string label_selector = "");
ListerWatcher<Node> NodeListerWatcher(Client& client, std::string label_selector = "");
// Every object of `resource` (kube/api/selector_object.h) in every namespace.
ListerWatcher<SelectorObject> SelectorObjectListerWatcher(Client& client,
                                                          SelectorResource resource);
// Every PodDisruptionBudget, in the version the server serves: policy/v1 until a list
// answers NotFound (a 1.20 apiserver), then policy/v1beta1 for good. The lists and
// watches of one ListerWatcher share that choice (thread-safe).
ListerWatcher<SelectorObject> DisruptionBudgetListerWatcher(Client& client);

// Every object of `resource` (kube/api/storage.h) in every namespace.
ListerWatcher<StorageObject> StorageObjectListerWatcher(Client& client, StorageResource resource);
// Every PodGroup (scheduling.x-k8s.io/v1alpha1) in every namespace.
ListerWatcher<PodGroup> PodGroupListerWatcher(Client& client);

// Every CSIStorageCapacity, in the version the server serves: storage.k8s.io/v1 (1.24+)
// until a list answers NotFound, then v1beta1 (1.21-1.23); when that is NotFound too (a
// 1.20 apiserver, where the API is alpha and off) the resource is not served: logged
// once, `on_not_served` called once, every list from then on is empty and every watch
// waits for its stop without calling the server (no retries). Other errors are returned
// as is, without switching. Thread-safe; `on_not_served` may be empty.
ListerWatcher<StorageObject> StorageCapacityListerWatcher(Client& client,
                                                          std::function<void()> on_not_served);

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
  // The backoff (see the file comment): the first wait, the cap of the doubling.
  absl::Duration min_backoff = absl::Milliseconds(800);
  absl::Duration max_backoff = absl::Seconds(30);
  absl::Duration watch_timeout = absl::Minutes(5);
  // A watch that ends sooner than this with no event is a very short watch; the next
  // watch starts no sooner than this after it started.
  absl::Duration min_watch_duration = absl::Seconds(1);
  // Each backoff is multiplied by a random factor in [1, 1 + backoff_jitter); 0: exact.
  double backoff_jitter = 1.0;
  // The backoff starts again from min_backoff when none started for this long.
  absl::Duration backoff_reset = absl::Minutes(2);
};

struct InformerCounters {
  std::atomic<uint64_t> lists{0};
  std::atomic<uint64_t> relists_gone{0};    // 410 Gone
  std::atomic<uint64_t> watch_restarts{0};  // normal end of a watch
  std::atomic<uint64_t> watch_errors{0};    // failed watches (reconnects)
  std::atomic<uint64_t> short_watches{0};   // very short watches (no event, < 1 s)
  std::atomic<uint64_t> list_errors{0};
  std::atomic<uint64_t> list_restarts{0};  // lists restarted after an expired continue
  std::atomic<uint64_t> resource_version_regressions{0};
  std::atomic<uint64_t> events{0};
  std::atomic<uint64_t> decode_errors{0};  // list items and watch events skipped
};

namespace internal {

// The typed half of an informer, as the reflector loop sees it. Informer<T> implements it;
// every call comes from the reflector thread.
class ReflectorTarget {
 public:
  // Called by Watch for each event. `apply` puts the event's object into the store and
  // runs the handlers; the reflector calls it for ADDED, MODIFIED and DELETED only.
  // Returns false to end the watch.
  using EventFn = absl::FunctionRef<bool(WatchEventType type, const std::string& resource_version,
                                         const std::optional<ApiStatus>& error,
                                         absl::FunctionRef<void()> apply)>;

  virtual ~ReflectorTarget() = default;
  // Lists one page and keeps its objects until ReplaceWithListed or DropListed.
  virtual absl::StatusOr<ListMeta> ListPage(const ListOptions& options) = 0;
  // Forgets the objects listed so far (the list starts again).
  virtual void DropListed() = 0;
  // Makes the store equal the objects listed, calling handlers for the difference.
  virtual void ReplaceWithListed() = 0;
  virtual size_t StoreSize() const = 0;
  virtual absl::Status Watch(const WatchOptions& options, EventFn on_event,
                             std::stop_token stop) = 0;
};

// What the reflector lists and watches (the untyped part of a ListerWatcher).
struct ReflectorSource {
  std::string label_selector;
  std::string field_selector;
  std::string description;
};

// The reflector loop (see the file comment) on its own std::jthread, with the sync state,
// the resume point and the counters. Borrows the target and the clock.
class Reflector {
 public:
  Reflector(ReflectorTarget& target, ReflectorSource source, const Clock& clock,
            InformerOptions options);
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  void Start();
  // Asks the loop to stop without waiting (an in-flight call ends at its next stop
  // check); Stop() then joins. Lets an owner stop many informers in parallel.
  void RequestStop();
  void Stop();
  bool HasSynced() const { return synced_.load(std::memory_order_acquire); }
  bool WaitForSync(absl::Duration timeout) const;
  std::string LastSyncResourceVersion() const;
  const InformerCounters& counters() const { return counters_; }
  // The typed half reports that `key` went from resourceVersion `from` to the older
  // `to` (see the file comment). Reflector thread only.
  void CountRegression(const std::string& key, const std::string& from, const std::string& to);
  // An object that did not decode (a list item or a watch event) and is skipped: counts
  // it and logs it at warning, once per key (its position when no key is readable).
  // Reflector thread only.
  void ReportUndecodable(const DecodeFailure& failure);

 private:
  // How one watch ended.
  struct WatchResult {
    absl::Status status;
    bool gone = false;  // 410: re-list
    uint64_t events = 0;
  };
  void Run(std::stop_token stop);
  absl::Status ListAndReplace(std::stop_token stop);
  // Replaces the store with the objects listed; `rv` is the list's resourceVersion.
  absl::Status Replace(const std::string& rv);
  WatchResult WatchOnce(std::stop_token stop);
  bool OnEvent(WatchEventType type, const std::string& resource_version,
               const std::optional<ApiStatus>& error, absl::FunctionRef<void()> apply,
               WatchResult* result);
  void SetResourceVersion(const std::string& rv);
  // The next backoff wait (see the file comment); reflector thread only.
  absl::Duration NextBackoff();

  ReflectorTarget& target_;
  const ReflectorSource source_;
  const Clock& clock_;
  const InformerOptions options_;
  InformerCounters counters_;
  mutable absl::Mutex sync_mu_;
  std::atomic<bool> synced_{false};
  mutable absl::Mutex rv_mu_;
  std::string resource_version_ ABSL_GUARDED_BY(rv_mu_);
  // The backoff state (reflector thread only).
  absl::Duration backoff_ = absl::ZeroDuration();  // the last step, before jitter
  absl::Time last_backoff_ = absl::InfinitePast();
  std::mt19937_64 rng_;
  // Keys of undecodable objects already logged (reflector thread only; bounded).
  std::set<std::string> reported_undecodable_;
  std::jthread thread_;
};

}  // namespace internal

template <typename T>
class Informer final : private internal::ReflectorTarget {
 public:
  Informer(ListerWatcher<T> lw, const Clock& clock, InformerOptions options = {})
      : lw_(std::move(lw)),
        reflector_(*this, {lw_.label_selector, lw_.field_selector, lw_.description}, clock,
                   options) {}
  // Joins the reflector thread before the store and handlers go.
  ~Informer() override { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  Store<T>& store() { return store_; }
  const Store<T>& store() const { return store_; }

  // Handlers must be added before Start.
  void AddEventHandlers(EventHandlers<T> handlers) { handlers_.push_back(std::move(handlers)); }

  void Start() { reflector_.Start(); }
  // Stop without waiting; Stop() joins (see Reflector::RequestStop).
  void RequestStop() { reflector_.RequestStop(); }
  void Stop() { reflector_.Stop(); }

  bool HasSynced() const { return reflector_.HasSynced(); }
  // Blocks until synced, `timeout` passes (false) or never with InfiniteDuration.
  bool WaitForSync(absl::Duration timeout) const { return reflector_.WaitForSync(timeout); }
  std::string LastSyncResourceVersion() const { return reflector_.LastSyncResourceVersion(); }
  const InformerCounters& counters() const { return reflector_.counters(); }

 private:
  using Ptr = std::shared_ptr<const T>;

  absl::StatusOr<ListMeta> ListPage(const ListOptions& options) override {
    absl::StatusOr<List<T>> page = lw_.list(options);
    if (!page.ok()) return page.status();
    for (const DecodeFailure& f : page->skipped) reflector_.ReportUndecodable(f);
    for (auto& item : page->items) listed_.push_back(std::make_shared<const T>(std::move(item)));
    return std::move(page->metadata);
  }

  void DropListed() override { listed_.clear(); }

  void ReplaceWithListed() override {
    std::set<std::string> seen;
    for (Ptr& obj : listed_) {
      std::string key = ObjectKey(*obj);
      seen.insert(key);
      Ptr old = store_.Get(key);
      if (old && old->metadata.resource_version == obj->metadata.resource_version) continue;
      if (old) CheckForward(key, *old, *obj);
      store_.Upsert(obj);
      if (old) {
        OnUpdate(old, obj);
      } else {
        OnAdd(obj);
      }
    }
    listed_.clear();
    for (const std::string& key : store_.Keys()) {
      if (seen.count(key)) continue;
      Ptr old = store_.Remove(key);
      if (!old) continue;
      OnDelete(old, /*final_state_unknown=*/true);
    }
  }

  size_t StoreSize() const override { return store_.Size(); }

  absl::Status Watch(const WatchOptions& options, EventFn on_event, std::stop_token stop) override {
    return lw_.watch(
        options,
        [&](WatchEvent<T>&& ev) -> bool {
          if (ev.undecodable) return OnUndecodable(ev, on_event);
          return on_event(ev.type, ev.object.metadata.resource_version, ev.error,
                          [&] { Apply(ev); });
        },
        stop);
  }

  // An event whose object did not decode (see the file comment).
  bool OnUndecodable(const WatchEvent<T>& ev, EventFn on_event) {
    reflector_.ReportUndecodable(*ev.undecodable);
    const std::string& rv = ev.undecodable->resource_version;
    if (ev.type == WatchEventType::kError) {
      // A Status that does not decode: re-list, as for any ERROR event.
      return on_event(WatchEventType::kError, rv, std::nullopt, [] {});
    }
    if (ev.type == WatchEventType::kDeleted && !ev.object.metadata.name.empty()) {
      // Gone, whatever its last state was: drop the last good copy.
      return on_event(WatchEventType::kDeleted, rv, std::nullopt, [&] {
        Ptr old = store_.Remove(ObjectKey(ev.object));
        if (old) OnDelete(old, /*final_state_unknown=*/true);
      });
    }
    // ADDED / MODIFIED / an unreadable line: nothing to apply (a MODIFIED keeps the last
    // good copy); only the resume point moves past the event, as a BOOKMARK does.
    return on_event(WatchEventType::kBookmark, rv, std::nullopt, [] {});
  }

  // ADDED / MODIFIED / DELETED: the store, then the handlers.
  void Apply(WatchEvent<T>& ev) {
    if (ev.type == WatchEventType::kDeleted) {
      Ptr old = store_.Remove(ObjectKey(ev.object));
      if (old) CheckForward(ObjectKey(ev.object), *old, ev.object);
      // The event carries the object's final state.
      OnDelete(std::make_shared<const T>(std::move(ev.object)), false);
      return;
    }
    auto obj = std::make_shared<const T>(std::move(ev.object));
    Ptr old = store_.Upsert(obj);
    if (old) {
      CheckForward(ObjectKey(*obj), *old, *obj);
      OnUpdate(old, obj);
    } else {
      OnAdd(obj);
    }
  }

  // Counts `next` going back to an older resourceVersion than `prev` (both numeric).
  void CheckForward(const std::string& key, const T& prev, const T& next) {
    uint64_t a = 0;
    uint64_t b = 0;
    if (absl::SimpleAtoi(prev.metadata.resource_version, &a) &&
        absl::SimpleAtoi(next.metadata.resource_version, &b) && b < a) {
      reflector_.CountRegression(key, prev.metadata.resource_version,
                                 next.metadata.resource_version);
    }
  }

  void OnAdd(const Ptr& obj) {
    for (auto& h : handlers_) {
      if (h.on_add) h.on_add(obj);
    }
  }
  void OnUpdate(const Ptr& old_obj, const Ptr& new_obj) {
    for (auto& h : handlers_) {
      if (h.on_update) h.on_update(old_obj, new_obj);
    }
  }
  void OnDelete(const Ptr& obj, bool final_state_unknown) {
    for (auto& h : handlers_) {
      if (h.on_delete) h.on_delete(obj, final_state_unknown);
    }
  }

  ListerWatcher<T> lw_;
  Store<T> store_;
  std::vector<EventHandlers<T>> handlers_;
  std::vector<Ptr> listed_;  // reflector thread only
  // Last: constructed after what it uses.
  internal::Reflector reflector_;
};

}  // namespace trimaran::kube
