#pragma once
// sched::Status: the outcome of one plugin call at one extension point, with
// kube-scheduler's codes (k8s.io/kube-scheduler/framework Code), reasons and the name of
// the plugin that produced it.
//
// A scheduling outcome is not an error: "the pod does not fit on this node" is a
// Status with code kUnschedulable, not an absl::Status. absl::Status is kept for
// infrastructure failures and enters the framework through FromAbsl (code kError).
//
// Cost model (Filter and Score run ~5,000 times per pod):
//   - Success, and any code without reasons or plugin name, is two words and never
//     allocates (Status() / Status::Success() / Status::Skip()).
//   - Reasons, plugin name and the wrapped absl::Status live in one shared, immutable,
//     reference-counted block. Copies share it (an atomic increment, no allocation), so
//     a plugin can build its fixed rejections once and return copies:
//
//       static const Status kTooManyPods =
//           Status::Unschedulable("Too many pods").WithPlugin(kName);
//       ...
//       return kTooManyPods;  // no allocation per node
//
//     Mutation (WithPlugin, AppendReason) copies the block only when it is shared and the
//     value actually changes (copy-on-write); setting the plugin name a status already
//     carries is free.
//
// Thread-safety: a Status is a value. Distinct Status objects may be used from different
// threads even when they share a block (the block is immutable once shared); one Status
// object is externally synchronized.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace trimaran::sched {

// What a plugin's answer means to the scheduler. The consequences below are the
// contract the runtime and the queue implement (spec kube-scheduler.md §3, §4.1, §5.3,
// §5.4).
enum class Code : uint8_t {
  // The plugin ran and found nothing wrong. Free to construct and return.
  kSuccess = 0,
  // An internal or unexpected failure (bad input, missing CycleState data, an API call
  // that failed). The scheduling cycle is aborted for this pod at once (no other node is
  // tried, PostFilter/preemption does not run), the pod goes to the *error* backoff
  // queue and gets PodScheduled=False with reason SchedulerError. Never use it for an
  // expected "does not fit": that is kUnschedulable.
  kError,
  // The pod does not fit (here, now). Filter: this node is rejected, others are still
  // tried, and preemption (PostFilter) may evict lower-priority pods on this node to make
  // room. When no node fits, the pod goes to the unschedulable pool and is moved back
  // (to backoffQ or activeQ) only by a cluster event the rejecting plugin registered for
  // (EnqueueExtensions), or by the 5-minute flush. Reasons become the FailedScheduling
  // message.
  kUnschedulable,
  // As kUnschedulable, but preemption cannot help: PostFilter skips this node. Returned
  // from PreFilter it ends the cycle immediately without running further PreFilters.
  kUnschedulableAndUnresolvable,
  // Permit only: hold the pod (assumed, resources reserved) until another component
  // allows or rejects it, or the returned timeout expires (then: rejected, Unreserve).
  kWait,
  // PreFilter/PreScore: the plugin has nothing to do for this pod, so the runtime skips
  // its Filter/Score (and PreFilterExtensions) for this cycle; a skipped Score counts 0.
  // Bind: the plugin does not bind this pod; the next Bind plugin is tried. Not a
  // rejection and not an error.
  kSkip,
  // The cycle found a place but must wait for an external component (the plugin will
  // make the pod schedulable later, as DRA does). The pod goes to the unschedulable pool
  // without backoff and is moved straight to activeQ by the plugin's own event.
  kPending,
};

// "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip",
// "Pending" (upstream's Code.String()).
absl::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  // Success. Never allocates.
  Status() = default;
  explicit Status(Code code) : code_(code) {}
  Status(Code code, std::vector<std::string> reasons);

  static Status Success() { return Status(); }
  static Status Skip() { return Status(Code::kSkip); }
  static Status Wait() { return Status(Code::kWait); }
  static Status Error(absl::string_view message);
  static Status Unschedulable(absl::string_view reason);
  static Status Unschedulable(std::vector<std::string> reasons);
  static Status UnschedulableAndUnresolvable(absl::string_view reason);
  static Status UnschedulableAndUnresolvable(std::vector<std::string> reasons);
  static Status Pending(absl::string_view reason);

  // OK -> Success; anything else -> kError whose reason is the status message and which
  // keeps the original status (AsAbsl returns it unchanged). Upstream's AsStatus(err).
  static Status FromAbsl(const absl::Status& status);

  Code code() const { return code_; }
  bool IsSuccess() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsWait() const { return code_ == Code::kWait; }
  bool IsError() const { return code_ == Code::kError; }
  // kUnschedulable, kUnschedulableAndUnresolvable or kPending: the pod was turned away
  // (as opposed to Success/Skip/Wait, and to kError). Upstream's IsRejected().
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }

  // The reasons, in order. Empty for a plain Success.
  const std::vector<std::string>& reasons() const;
  // The reasons joined with ", " (upstream's Message()).
  std::string Message() const;
  // The plugin that produced this status ("" unless set). The runtime sets it on every
  // non-success status it receives; plugins may pre-set it on shared statuses.
  absl::string_view plugin() const;

  // Returns this status attributed to `plugin`.
  Status WithPlugin(absl::string_view plugin) const&;
  Status WithPlugin(absl::string_view plugin) &&;
  // In place; free when the plugin name is already `plugin`.
  void SetPlugin(absl::string_view plugin);
  void AppendReason(absl::string_view reason);

  // Success, Wait and Skip -> OkStatus. kError -> the absl::Status given to FromAbsl, or
  // Internal(Message()). Rejections -> FailedPrecondition(Message()), prefixed with the
  // plugin name when set ("NodeResourcesFit: Insufficient cpu"). Upstream's AsError().
  absl::Status AsAbsl() const;

  // "Unschedulable: Insufficient cpu, Too many pods (plugin=NodeResourcesFit)".
  std::string ToString() const;

  // Same code, reasons and plugin (the wrapped absl::Status of kError is compared too).
  friend bool operator==(const Status& a, const Status& b);
  friend bool operator!=(const Status& a, const Status& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

 private:
  struct Rep {
    std::vector<std::string> reasons;
    std::string plugin;
    absl::Status error;  // kError from FromAbsl only
  };

  // The block, made exclusive to this object (copied if shared, created if absent).
  Rep& MutableRep();

  Code code_ = Code::kSuccess;
  // Null when there are no reasons, no plugin and no wrapped error. Immutable while
  // shared (use_count() > 1).
  std::shared_ptr<Rep> rep_;
};

}  // namespace trimaran::sched
