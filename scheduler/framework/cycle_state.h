#pragma once
// CycleState: scratch space for one pod's scheduling cycle (and its binding cycle),
// keyed by string. Plugins use it to hand data from an early extension point to a later
// one: NodeResourcesFit computes the pod's request once in PreFilter and reads it in
// Filter for every node.
//
// Keys: a plugin uses keys that start with its own name ("PreFilterNodeResourcesFit"),
// so plugins never collide; a plugin reads only keys it (or a plugin it is coupled
// with) wrote.
//
// Thread-safety (the contract upstream documents, enforced here by constness rather
// than by a lock, so the per-node read path takes no lock):
//   - Writes (Write, Delete, ReadMutable, SetSkip*) happen only from the sequential
//     extension points, which receive `CycleState&`: PreFilter, PostFilter, PreScore,
//     Reserve/Unreserve, Permit, PreBind, Bind, PostBind, and PreFilterExtensions on a
//     state private to the caller.
//   - Filter, Score (concurrent over nodes) and NormalizeScore (concurrent over plugins)
//     receive `const CycleState&`: they may only Read. Concurrent const access is safe.
//   - The binding cycle runs on another thread after the scheduling cycle has handed the
//     state over; the two never use one CycleState at the same time.
//
// Ownership: the state owns its StateData. Pointers returned by Read stay valid until
// the key is overwritten or deleted, or the state is destroyed.
//
// Clone() deep-copies every entry (StateData::Clone) so preemption can simulate
// removing pods on a private copy per candidate node.

#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trimaran::sched {

// A value stored in a CycleState.
class StateData {
 public:
  virtual ~StateData() = default;
  // A deep copy (a plugin whose data is immutable after PreFilter may copy cheaply,
  // e.g. by sharing an inner shared_ptr<const ...>).
  virtual std::unique_ptr<StateData> Clone() const = 0;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;
  CycleState(CycleState&&) = default;
  CycleState& operator=(CycleState&&) = default;

  // Stores `data` under `key`, replacing any previous value.
  void Write(absl::string_view key, std::unique_ptr<StateData> data) {
    data_.insert_or_assign(key, std::move(data));
  }

  // The value under `key`, or nullptr. No allocation.
  const StateData* Get(absl::string_view key) const {
    const auto it = data_.find(key);
    return it == data_.end() ? nullptr : it->second.get();
  }

  // The value under `key` as a T. NotFound when absent, Internal when it is not a T.
  // No allocation on success (the safe way to read in Filter/Score).
  template <typename T>
  absl::StatusOr<const T*> Read(absl::string_view key) const {
    const StateData* data = Get(key);
    if (data == nullptr) return NotFound(key);
    const T* typed = dynamic_cast<const T*>(data);
    if (typed == nullptr) return WrongType(key);
    return typed;
  }

  // As Read, for the sequential extension points that update their data in place
  // (Reserve, PreFilterExtensions::AddPod/RemovePod).
  template <typename T>
  absl::StatusOr<T*> ReadMutable(absl::string_view key) {
    const auto it = data_.find(key);
    if (it == data_.end()) return NotFound(key);
    T* typed = dynamic_cast<T*>(it->second.get());
    if (typed == nullptr) return WrongType(key);
    return typed;
  }

  // Removes `key`; a no-op when absent.
  void Delete(absl::string_view key) { data_.erase(key); }

  size_t size() const { return data_.size(); }

  // Plugins whose PreFilter (PreScore) returned Skip this cycle: the runtime does not
  // run their Filter (Score). Written by the runtime only.
  void SetSkipFilterPlugins(absl::flat_hash_set<std::string> plugins) {
    skip_filter_plugins_ = std::move(plugins);
  }
  void SetSkipScorePlugins(absl::flat_hash_set<std::string> plugins) {
    skip_score_plugins_ = std::move(plugins);
  }
  const absl::flat_hash_set<std::string>& skip_filter_plugins() const {
    return skip_filter_plugins_;
  }
  const absl::flat_hash_set<std::string>& skip_score_plugins() const { return skip_score_plugins_; }

  // Whether the runtime samples this cycle's per-plugin latency metrics (upstream
  // records them for ~10% of cycles to keep the hot path cheap).
  bool record_plugin_metrics() const { return record_plugin_metrics_; }
  void set_record_plugin_metrics(bool record) { record_plugin_metrics_ = record; }

  // A deep copy of everything above.
  std::unique_ptr<CycleState> Clone() const {
    auto copy = std::make_unique<CycleState>();
    copy->data_.reserve(data_.size());
    for (const auto& [key, data] : data_) {
      copy->data_.emplace(key, data == nullptr ? nullptr : data->Clone());
    }
    copy->skip_filter_plugins_ = skip_filter_plugins_;
    copy->skip_score_plugins_ = skip_score_plugins_;
    copy->record_plugin_metrics_ = record_plugin_metrics_;
    return copy;
  }

 private:
  static absl::Status NotFound(absl::string_view key) {
    return absl::NotFoundError(absl::StrCat("reading \"", key, "\" from cycle state: not found"));
  }
  static absl::Status WrongType(absl::string_view key) {
    return absl::InternalError(
        absl::StrCat("reading \"", key, "\" from cycle state: unexpected data type"));
  }

  absl::flat_hash_map<std::string, std::unique_ptr<StateData>> data_;
  absl::flat_hash_set<std::string> skip_filter_plugins_;
  absl::flat_hash_set<std::string> skip_score_plugins_;
  bool record_plugin_metrics_ = false;
};

using CycleStatePtr = std::unique_ptr<CycleState>;

}  // namespace trimaran::sched
