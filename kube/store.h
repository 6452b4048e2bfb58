#pragma once
// Store<T>: the thread-safe, indexed cache of objects an informer keeps (client-go's
// ThreadSafeStore + Indexer). Objects are immutable once stored and handed out as
// shared_ptr<const T>, so readers never copy and never lock while they use an object.
//
// Keys: "namespace/name" for namespaced objects, "name" otherwise (ObjectKey()).
// Indexes: an index maps an object to zero or more index values; ByIndex returns the
// objects with a value (e.g. the index "node" maps a pod to spec.nodeName, giving
// "pods by node").
//
// Thread-safety: safe for concurrent use.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"

namespace trimaran::kube {

inline std::string ObjectKey(const Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
}
inline std::string ObjectKey(const Node& node) { return node.metadata.name; }
inline std::string ObjectKey(const SelectorObject& object) {
  return NamespacedName(object.metadata);
}
inline std::string ObjectKey(const PodGroup& object) { return NamespacedName(object.metadata); }
inline std::string ObjectKey(const StorageObject& object) {
  return NamespacedName(object.metadata);
}

template <typename T>
using IndexFunc = std::function<std::vector<std::string>(const T&)>;

template <typename T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;

  // Indexes must be added before the first object.
  void AddIndex(std::string name, IndexFunc<T> func) {
    absl::MutexLock lock(&mu_);
    indexers_[name] = std::move(func);
    indices_[name];
  }

  // Inserts or replaces; returns the previous object (null if new).
  Ptr Upsert(Ptr obj) {
    std::string key = ObjectKey(*obj);
    absl::MutexLock lock(&mu_);
    Ptr old;
    auto it = items_.find(key);
    if (it != items_.end()) {
      old = it->second;
      Unindex(key, *old);
      it->second = obj;
    } else {
      items_.emplace(key, obj);
    }
    Index(key, *obj);
    return old;
  }

  // Removes by key; returns the removed object (null if absent).
  Ptr Remove(const std::string& key) {
    absl::MutexLock lock(&mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    Ptr old = it->second;
    Unindex(key, *old);
    items_.erase(it);
    return old;
  }

  Ptr Get(const std::string& key) const {
    absl::MutexLock lock(&mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }

  std::vector<Ptr> List() const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(v);
    return out;
  }

  std::vector<std::string> Keys() const {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [k, v] : items_) out.push_back(k);
    return out;
  }

  size_t Size() const {
    absl::MutexLock lock(&mu_);
    return items_.size();
  }

  // Objects whose index `index` contains `value`, in key order.
  std::vector<Ptr> ByIndex(const std::string& index, const std::string& value) const {
    absl::MutexLock lock(&mu_);
    std::vector<Ptr> out;
    auto idx = indices_.find(index);
    if (idx == indices_.end()) return out;
    auto keys = idx->second.find(value);
    if (keys == idx->second.end()) return out;
    for (const auto& key : keys->second) out.push_back(items_.at(key));
    return out;
  }

 private:
  void Index(const std::string& key, const T& obj) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, func] : indexers_) {
      for (auto& value : func(obj)) indices_[name][value].insert(key);
    }
  }
  void Unindex(const std::string& key, const T& obj) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [name, func] : indexers_) {
      auto& index = indices_[name];
      for (auto& value : func(obj)) {
        auto it = index.find(value);
        if (it == index.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) index.erase(it);
      }
    }
  }

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Ptr> items_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, IndexFunc<T>> indexers_ ABSL_GUARDED_BY(mu_);
  // index name -> index value -> keys
  std::map<std::string, absl::flat_hash_map<std::string, std::set<std::string>>> indices_
      ABSL_GUARDED_BY(mu_);
};

// The "pods by node" index: spec.nodeName of assigned pods.
inline constexpr char kPodsByNodeIndex[] = "node";
inline std::vector<std::string> PodNodeIndexFunc(const Pod& pod) {
  if (pod.spec.node_name.empty()) return {};
  return {pod.spec.node_name};
}

}  // namespace trimaran::kube
