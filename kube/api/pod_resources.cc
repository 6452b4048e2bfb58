#include "kube/api/pod_resources.h"

#include <algorithm>
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

// The requests of one container, with the non-zero defaults applied when asked.
Resource ContainerRequests(const Container& c, bool non_zero) {
  Resource r = Resource::FromResourceList(c.resources.requests);
  if (non_zero) {
    // Only a missing entry is defaulted; an explicit 0 stays 0.
    if (!c.resources.requests.contains(kResourceCPU)) r.milli_cpu = kDefaultMilliCPURequest;
    if (!c.resources.requests.contains(kResourceMemory)) r.memory = kDefaultMemoryRequest;
  }
  return r;
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

Resource ComputePodRequests(const Pod& pod, PodRequestOptions options) {
  const PodSpec& spec = pod.spec;
  Resource requests;
  for (const Container& c : spec.containers) {
    requests.Add(ContainerRequests(c, options.non_zero));
  }

  // Init containers run one at a time, before the app containers but next to the
  // sidecars started before them.
  Resource sidecars;  // Σ sidecars declared so far
  Resource init_max;  // max over init containers of their init-phase usage
  for (const Container& c : spec.init_containers) {
    Resource r = ContainerRequests(c, options.non_zero);
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

  if (spec.resources.has_value()) {
    for (const auto& [name, q] : spec.resources->requests) {
      if (!IsSupportedPodLevelResource(name)) continue;
      if (name == kResourceCPU) {
        requests.milli_cpu = q.MilliValue();
      } else {
        requests.Set(name, q.Value());
      }
    }
  }

  if (!options.exclude_overhead) {
    for (const auto& [name, q] : spec.overhead) requests.AddResource(name, q);
  }
  return requests;
}

}  // namespace trimaran::kube
