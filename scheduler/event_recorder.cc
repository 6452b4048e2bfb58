#include "scheduler/event_recorder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/logging.h"

namespace trimaran::sched {
namespace {

constexpr size_t kMaxNoteBytes = 1024;

kube::ObjectReference PodReference(const kube::Pod& pod) {
  kube::ObjectReference ref;
  ref.api_version = "v1";
  ref.kind = "Pod";
  ref.namespace_name = pod.metadata.namespace_name;
  ref.name = pod.metadata.name;
  ref.uid = pod.metadata.uid;
  ref.resource_version = pod.metadata.resource_version;
  return ref;
}

// The recorder's one family (event_recorder.h).
stats::Family<stats::Counter>& EventsFamily(const stats::Scope& scope) {
  return scope.CounterFamily("events_total", "Events the scheduler recorded, by outcome.",
                             {"result"});
}

}  // namespace

AsyncEventRecorder::AsyncEventRecorder(kube::Client& client, const Clock& clock,
                                       const stats::Scope& scope, EventRecorderOptions options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      written_(EventsFamily(scope).WithLabels({"written"})),
      failed_(EventsFamily(scope).WithLabels({"failed"})),
      dropped_(EventsFamily(scope).WithLabels({"dropped"})),
      deduplicated_(EventsFamily(scope).WithLabels({"deduplicated"})) {
  writer_ = std::thread([this] { WriterLoop(); });
}

AsyncEventRecorder::~AsyncEventRecorder() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  writer_.join();
}

void AsyncEventRecorder::Eventf(const kube::Pod& regarding, const kube::Pod* related,
                                EventType type, absl::string_view reason, absl::string_view action,
                                absl::string_view note) {
  const std::string_view type_sv =
      type == EventType::kWarning ? kube::kEventTypeWarning : kube::kEventTypeNormal;
  const absl::string_view type_name(type_sv.data(), type_sv.size());
  if (note.size() > kMaxNoteBytes) note = note.substr(0, kMaxNoteBytes);
  const absl::Time now = clock_.Now();
  std::string key = absl::StrCat(
      regarding.metadata.uid.empty() ? kube::NamespacedName(regarding) : regarding.metadata.uid,
      "\x1f", type_name, "\x1f", reason, "\x1f", note);

  absl::MutexLock lock(&mu_);
  if (auto it = recent_.find(key);
      it != recent_.end() && now - it->second < options_.dedup_window) {
    deduplicated_.Inc();
    return;
  }
  if (queue_.size() >= options_.queue_capacity) {
    dropped_.Inc();
    return;
  }
  // Keep the dedup map bounded: forget expired keys, oldest first, and the oldest ones
  // beyond the capacity.
  while (!recent_order_.empty() && (now - recent_order_.front().second >= options_.dedup_window ||
                                    recent_order_.size() >= options_.dedup_capacity)) {
    auto& [old_key, when] = recent_order_.front();
    if (auto it = recent_.find(old_key); it != recent_.end() && it->second == when) {
      recent_.erase(it);
    }
    recent_order_.pop_front();
  }
  recent_order_.emplace_back(key, now);
  recent_.insert_or_assign(std::move(key), now);

  kube::Event event;
  event.metadata.namespace_name = regarding.metadata.namespace_name;
  event.metadata.name = absl::StrFormat("%s.%x", regarding.metadata.name,
                                        absl::ToUnixNanos(now) + static_cast<int64_t>(sequence_++));
  event.event_time = now;
  // As upstream's per-profile recorders: the profile's schedulerName, which is the pod's.
  event.reporting_controller = regarding.spec.scheduler_name.empty()
                                   ? options_.reporting_controller
                                   : regarding.spec.scheduler_name;
  event.reporting_instance = options_.reporting_instance;
  event.action = std::string(action);
  event.reason = std::string(reason);
  event.regarding = PodReference(regarding);
  if (related != nullptr) event.related = PodReference(*related);
  event.note = std::string(note);
  event.type = std::string(type_name);
  queue_.push_back(std::move(event));
}

void AsyncEventRecorder::Flush() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](AsyncEventRecorder* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->queue_.empty() && self->writing_ == 0;
      },
      this));
}

size_t AsyncEventRecorder::FlushFor(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](AsyncEventRecorder* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                             return self->queue_.empty() && self->writing_ == 0;
                           },
                           this),
                       timeout);
  const size_t dropped = queue_.size();
  dropped_.Add(dropped);
  queue_.clear();
  return dropped;
}

void AsyncEventRecorder::WriterLoop() {
  while (true) {
    kube::Event event;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](AsyncEventRecorder* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->queue_.empty() || self->stopping_;
          },
          this));
      if (queue_.empty()) return;  // stopping, and everything was written
      event = std::move(queue_.front());
      queue_.pop_front();
      ++writing_;
    }
    const absl::Status status = client_.CreateEvent(event);
    if (status.ok()) {
      written_.Inc();
    } else {
      failed_.Inc();
      Log(Component::kMain)
          .warn("event write failed reason={} pod={}/{}: {}", event.reason,
                event.regarding.namespace_name, event.regarding.name, status.ToString());
    }
    absl::MutexLock lock(&mu_);
    --writing_;
  }
}

}  // namespace trimaran::sched
