#include "kube/api/pod_resources.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trimaran::kube {
namespace {

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

int64_t SatSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

// The requests of one container: `list` (nullptr for none, as a nil list upstream), with
// the non-zero defaults applied when asked.
Resource ContainerRequests(const ResourceList* list, bool non_zero) {
  Resource r = list != nullptr ? Resource::FromResourceList(*list) : Resource();
  if (non_zero) {
    // Only a missing entry is defaulted; an explicit 0 stays 0.
    if (list == nullptr || !list->contains(kResourceCPU)) r.milli_cpu = kDefaultMilliCPURequest;
    if (list == nullptr || !list->contains(kResourceMemory)) r.memory = kDefaultMemoryRequest;
  }
  return r;
}

// Which requests of a container an aggregate sums: its spec, what the kubelet allocated,
// or what the runtime actuated (upstream's containerSpecRequests,
// containerAllocatedRequests and containerActuatedRequests). nullptr is a nil list.
enum class RequestSource { kSpec, kAllocated, kActuated };

const ResourceList* ActuatedRequests(const ContainerStatus* status) {
  if (status == nullptr || !status->resources || status->resources->requests.empty()) {
    return nullptr;
  }
  return &status->resources->requests;
}

const ResourceList* SelectRequests(const Container& c, const ContainerStatus* status,
                                   RequestSource source, bool resize_infeasible) {
  if (source == RequestSource::kSpec) return &c.resources.requests;
  if (source == RequestSource::kActuated) {
    if (const ResourceList* actuated = ActuatedRequests(status)) return actuated;
  }
  if (status != nullptr && status->allocated_resources) return &*status->allocated_resources;
  // A resize the node cannot satisfy: the spec is not what runs, so it does not count.
  if (resize_infeasible) return nullptr;
  return &c.resources.requests;
}

const ContainerStatus* FindContainerStatus(const PodStatus& status, std::string_view name) {
  for (const ContainerStatus& cs : status.container_statuses) {
    if (cs.name == name) return &cs;
  }
  for (const ContainerStatus& cs : status.init_container_statuses) {
    if (cs.name == name) return &cs;
  }
  return nullptr;
}

//   Σ containers(r) + Σ sidecars(r), max_i initUsage_i(r)
// over the requests `source` selects for each container.
Resource AggregateContainerRequests(const Pod& pod, RequestSource source, bool resize_infeasible,
                                    bool non_zero) {
  const PodSpec& spec = pod.spec;
  auto requests_of = [&](const Container& c) {
    const ContainerStatus* status =
        source == RequestSource::kSpec ? nullptr : FindContainerStatus(pod.status, c.name);
    return ContainerRequests(SelectRequests(c, status, source, resize_infeasible), non_zero);
  };
  Resource requests;
  for (const Container& c : spec.containers) requests.Add(requests_of(c));

  // Init containers run one at a time, before the app containers but next to the
  // sidecars started before them.
  Resource sidecars;  // Σ sidecars declared so far
  Resource init_max;  // max over init containers of their init-phase usage
  for (const Container& c : spec.init_containers) {
    Resource r = requests_of(c);
    if (IsRestartableInitContainer(c)) {
      // A sidecar runs for the pod's whole life: it counts with the app containers.
      requests.Add(r);
      sidecars.Add(r);
      init_max.SetMaxResource(sidecars);
    } else {
      r.Add(sidecars);
      init_max.SetMaxResource(r);
    }
  }
  requests.SetMaxResource(init_max);
  return requests;
}

// True when the pod's status says anything of resources, so that 1.37's
// max(spec, allocated, actuated) can differ from the spec alone.
bool HasResizeStatus(const Pod& pod) {
  const PodStatus& status = pod.status;
  if (status.allocated_resources || status.resources) return true;
  if (IsPodResizeInfeasible(pod)) return true;
  auto reports = [](const ContainerStatus& cs) {
    return cs.allocated_resources.has_value() || cs.resources.has_value();
  };
  return std::any_of(status.container_statuses.begin(), status.container_statuses.end(), reports) ||
         std::any_of(status.init_container_statuses.begin(), status.init_container_statuses.end(),
                     reports);
}

// Upstream's AggregateContainerRequests with UseStatusResources and
// InPlacePodLevelResourcesVerticalScaling (both on in 1.37): while a resize is not done,
// a pod holds the larger of what it asks for, what was allocated and what runs.
Resource ContainerAggregate(const Pod& pod, bool non_zero) {
  const Resource spec = AggregateContainerRequests(pod, RequestSource::kSpec, false, non_zero);
  if (!HasResizeStatus(pod)) return spec;
  const bool infeasible = IsPodResizeInfeasible(pod);
  Resource allocated;
  Resource actuated;
  const PodStatus& status = pod.status;
  if (status.allocated_resources && status.resources && !status.resources->requests.empty()) {
    // The kubelet's pod-level aggregates, when it reports them.
    allocated = Resource::FromResourceList(*status.allocated_resources);
    actuated = Resource::FromResourceList(status.resources->requests);
  } else {
    allocated = AggregateContainerRequests(pod, RequestSource::kAllocated, infeasible, non_zero);
    actuated = AggregateContainerRequests(pod, RequestSource::kActuated, infeasible, non_zero);
  }
  Resource result = infeasible ? Resource() : spec;
  result.SetMaxResource(allocated);
  result.SetMaxResource(actuated);
  return result;
}

// max over `lists` by resource name (upstream's max of ResourceLists).
ResourceList MaxResourceList(std::initializer_list<const ResourceList*> lists) {
  ResourceList out;
  for (const ResourceList* list : lists) {
    if (list == nullptr) continue;
    for (const auto& [name, q] : *list) {
      auto [it, inserted] = out.try_emplace(name, q);
      if (!inserted && q.Cmp(it->second) > 0) it->second = q;
    }
  }
  return out;
}

// spec.resources.requests, or, while a pod-level resize is reported, the max of it, the
// actuated and the allocated pod-level resources (upstream's effectivePodLevelResources).
ResourceList EffectivePodLevelRequests(const Pod& pod) {
  const ResourceList& spec = pod.spec.resources->requests;
  if (!pod.status.resources) return spec;
  const ResourceList* allocated =
      pod.status.allocated_resources ? &*pod.status.allocated_resources : nullptr;
  return MaxResourceList(
      {IsPodResizeInfeasible(pod) ? nullptr : &spec, &pod.status.resources->requests, allocated});
}

bool IsPodLevelRequestsSet(const Pod& pod) {
  if (!pod.spec.resources.has_value()) return false;
  const ResourceList& requests = pod.spec.resources->requests;
  return std::any_of(requests.begin(), requests.end(),
                     [](const auto& kv) { return IsSupportedPodLevelResource(kv.first); });
}

}  // namespace

Resource Resource::FromResourceList(const ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) r.AddResource(name, q);
  return r;
}

void Resource::AddResource(std::string_view name, const Quantity& quantity) {
  if (name == kResourceCPU) {
    milli_cpu = SatAdd(milli_cpu, quantity.MilliValue());
  } else if (name == kResourceMemory) {
    memory = SatAdd(memory, quantity.Value());
  } else if (name == kResourceEphemeralStorage) {
    ephemeral_storage = SatAdd(ephemeral_storage, quantity.Value());
  } else if (name == kResourcePods) {
    allowed_pod_number = SatAdd(allowed_pod_number, quantity.Value());
  } else if (IsScalarResourceName(name)) {
    int64_t& v = scalar[absl::string_view(name.data(), name.size())];
    v = SatAdd(v, quantity.Value());
  }
}

void Resource::Add(const Resource& other) {
  milli_cpu = SatAdd(milli_cpu, other.milli_cpu);
  memory = SatAdd(memory, other.memory);
  ephemeral_storage = SatAdd(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = SatAdd(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, v] : other.scalar) {
    int64_t& mine = scalar[absl::string_view(name.data(), name.size())];
    mine = SatAdd(mine, v);
  }
}

void Resource::Sub(const Resource& other) {
  milli_cpu = SatSub(milli_cpu, other.milli_cpu);
  memory = SatSub(memory, other.memory);
  ephemeral_storage = SatSub(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = SatSub(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, v] : other.scalar) {
    int64_t& mine = scalar[absl::string_view(name.data(), name.size())];
    mine = SatSub(mine, v);
  }
}

void Resource::SetMaxResource(const Resource& other) {
  milli_cpu = std::max(milli_cpu, other.milli_cpu);
  memory = std::max(memory, other.memory);
  ephemeral_storage = std::max(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = std::max(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, v] : other.scalar) {
    auto [it, inserted] = scalar.try_emplace(name, v);
    if (!inserted) it->second = std::max(it->second, v);
  }
}

int64_t Resource::Get(std::string_view name) const {
  if (name == kResourceCPU) return milli_cpu;
  if (name == kResourceMemory) return memory;
  if (name == kResourceEphemeralStorage) return ephemeral_storage;
  if (name == kResourcePods) return allowed_pod_number;
  const auto it = scalar.find(absl::string_view(name.data(), name.size()));
  return it == scalar.end() ? 0 : it->second;
}

void Resource::Set(std::string_view name, int64_t value) {
  if (name == kResourceCPU) {
    milli_cpu = value;
  } else if (name == kResourceMemory) {
    memory = value;
  } else if (name == kResourceEphemeralStorage) {
    ephemeral_storage = value;
  } else if (name == kResourcePods) {
    allowed_pod_number = value;
  } else {
    scalar[absl::string_view(name.data(), name.size())] = value;
  }
}

bool Resource::IsZero() const {
  if (milli_cpu != 0 || memory != 0 || ephemeral_storage != 0 || allowed_pod_number != 0) {
    return false;
  }
  return std::all_of(scalar.begin(), scalar.end(), [](const auto& kv) { return kv.second == 0; });
}

bool operator==(const Resource& a, const Resource& b) {
  if (a.milli_cpu != b.milli_cpu || a.memory != b.memory ||
      a.ephemeral_storage != b.ephemeral_storage || a.allowed_pod_number != b.allowed_pod_number) {
    return false;
  }
  // A scalar entry of 0 equals a missing one.
  for (const auto& [name, v] : a.scalar) {
    if (b.Get(name) != v) return false;
  }
  for (const auto& [name, v] : b.scalar) {
    if (a.Get(name) != v) return false;
  }
  return true;
}

std::string Resource::DebugString() const {
  std::string out = absl::StrCat("cpu=", milli_cpu, "m memory=", memory);
  if (ephemeral_storage != 0) absl::StrAppend(&out, " ephemeral-storage=", ephemeral_storage);
  if (allowed_pod_number != 0) absl::StrAppend(&out, " pods=", allowed_pod_number);
  std::vector<std::pair<std::string, int64_t>> sorted(scalar.begin(), scalar.end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [name, v] : sorted) absl::StrAppend(&out, " ", name, "=", v);
  return out;
}

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || IsHugePageResourceName(name);
}

bool IsPodResizeInfeasible(const Pod& pod) {
  const PodCondition* pending = FindCondition(pod.status, kPodResizePending);
  return pending != nullptr && pending->reason == kPodReasonInfeasible;
}

Resource ComputePodRequests(const Pod& pod, PodRequestOptions options) {
  Resource requests = ContainerAggregate(pod, options.non_zero);
  if (IsPodLevelRequestsSet(pod)) {
    for (const auto& [name, q] : EffectivePodLevelRequests(pod)) {
      if (!IsSupportedPodLevelResource(name)) continue;
      if (name == kResourceCPU) {
        requests.milli_cpu = q.MilliValue();
      } else {
        requests.Set(name, q.Value());
      }
    }
  }

  if (!options.exclude_overhead) {
    for (const auto& [name, q] : pod.spec.overhead) requests.AddResource(name, q);
  }
  return requests;
}

}  // namespace trimaran::kube
