#pragma once
// ObjectStore: the scheduler's ObjectLister (scheduler/framework/handle.h), fed by the
// informers of namespaces, services, replication controllers, replica sets and stateful
// sets (cmd/scheduler/app.cc): Apply on add and update, Remove on delete. Objects are
// kept per resource and namespace, so listing one namespace's services never walks
// another's.
//
// Thread-safety: safe for concurrent use; readers share the stored objects (immutable
// behind shared_ptr<const>) and never block each other.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kube/api/selector_object.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched {

class ObjectStore final : public ObjectLister {
 public:
  // Adds or replaces the object of `resource` with `object`'s namespace and name.
  void Apply(kube::SelectorResource resource, std::shared_ptr<const kube::SelectorObject> object);
  // Removes it (no-op when absent).
  void Remove(kube::SelectorResource resource, const kube::SelectorObject& object);
  // How many objects of `resource` are stored.
  size_t Size(kube::SelectorResource resource) const;

  std::shared_ptr<const kube::SelectorObject> Get(kube::SelectorResource resource,
                                                  std::string_view ns,
                                                  std::string_view name) const override;
  std::vector<std::shared_ptr<const kube::SelectorObject>> List(kube::SelectorResource resource,
                                                                std::string_view ns) const override;

 private:
  using ByName = std::map<std::string, std::shared_ptr<const kube::SelectorObject>, std::less<>>;
  using ByNamespace = std::map<std::string, ByName, std::less<>>;
  static size_t Index(kube::SelectorResource resource) { return static_cast<size_t>(resource); }

  mutable absl::Mutex mu_;
  // Per resource; namespaces are kept under "".
  ByNamespace objects_[std::size(kube::kAllSelectorResources)] ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched
