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
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

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
    if (Entry* e = Find(key)) {
      e->data = std::move(data);
      return;
    }
    data_.push_back(Entry{std::string(key), key.data(), std::move(data)});
  }

  // The value under `key`, or nullptr. No allocation, no hashing: a cycle holds a
  // handful of entries, and plugins read with the same key constant they wrote with,
  // so the first comparison is usually a pointer comparison (Filter/Score call this
  // once per node).
  const StateData* Get(absl::string_view key) const {
    const Entry* e = Find(key);
    return e == nullptr ? nullptr : e->data.get();
  }

  // The value under `key` as a T. NotFound when absent, Internal when it is not a T.
  // No allocation on success (the safe way to read in Filter/Score).
  template <typename T>
  absl::StatusOr<const T*> Read(absl::string_view key) const {
    const StateData* data = Get(key);
    if (data == nullptr) return NotFound(key);
    const T* typed = Cast<const T>(data);
    if (typed == nullptr) return WrongType(key);
    return typed;
  }

  // As Read, for the sequential extension points that update their data in place
  // (Reserve, PreFilterExtensions::AddPod/RemovePod).
  template <typename T>
  absl::StatusOr<T*> ReadMutable(absl::string_view key) {
    Entry* e = Find(key);
    if (e == nullptr || e->data == nullptr) return NotFound(key);
    T* typed = Cast<T>(e->data.get());
    if (typed == nullptr) return WrongType(key);
    return typed;
  }

  // Removes `key`; a no-op when absent.
  void Delete(absl::string_view key) {
    for (auto it = data_.begin(); it != data_.end(); ++it) {
      if (it->key == key) {
        data_.erase(it);
        return;
      }
    }
  }

  size_t size() const { return data_.size(); }

  // Plugins whose PreFilter (PreScore) returned Skip this cycle: the runtime does not
  // run their Filter (Score). Written by the runtime only.
  void SetSkipFilterPlugins(absl::flat_hash_set<std::string> plugins) {
    skip_filter_plugins_ = std::move(plugins);
  }
  // The same set as a mask over the runtime's Filter plugin order (index i set = skip
  // the i-th Filter plugin), so the per-node loop tests a bit instead of hashing names.
  // Written by the runtime only.
  void SetSkipFilterMask(std::vector<bool> mask) { skip_filter_mask_ = std::move(mask); }
  const std::vector<bool>& skip_filter_mask() const { return skip_filter_mask_; }
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
    for (const Entry& e : data_) {
      copy->data_.push_back(Entry{e.key, e.key_ptr, e.data == nullptr ? nullptr : e.data->Clone()});
    }
    copy->skip_filter_plugins_ = skip_filter_plugins_;
    copy->skip_filter_mask_ = skip_filter_mask_;
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

  struct Entry {
    std::string key;
    const char* key_ptr;  // the caller's key data at Write, for the pointer fast path
    std::unique_ptr<StateData> data;
  };

  Entry* Find(absl::string_view key) {
    return const_cast<Entry*>(static_cast<const CycleState*>(this)->Find(key));
  }
  const Entry* Find(absl::string_view key) const {
    for (const Entry& e : data_) {
      if (e.key_ptr == key.data() && e.key.size() == key.size()) return &e;
    }
    for (const Entry& e : data_) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }

  // An exact type match is one type_info comparison; subclasses fall back to
  // dynamic_cast.
  template <typename T, typename D>
  static T* Cast(D* data) {
    if (typeid(*data) == typeid(std::remove_const_t<T>)) return static_cast<T*>(data);
    return dynamic_cast<T*>(data);
  }

  std::vector<Entry> data_;
  absl::flat_hash_set<std::string> skip_filter_plugins_;
  std::vector<bool> skip_filter_mask_;
  absl::flat_hash_set<std::string> skip_score_plugins_;
  bool record_plugin_metrics_ = false;
};

using CycleStatePtr = std::unique_ptr<CycleState>;

}  // namespace trimaran::sched
