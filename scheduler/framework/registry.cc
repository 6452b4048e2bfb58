#include "scheduler/framework/registry.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {

absl::Status Registry::Register(absl::string_view name, PluginDescriptor descriptor) {
  if (name.empty()) return absl::InvalidArgumentError("register plugin: empty name");
  if (!descriptor.factory) {
    return absl::InvalidArgumentError(absl::StrCat("register plugin \"", name, "\": no factory"));
  }
  const auto [it, inserted] = descriptors_.try_emplace(std::string(name), std::move(descriptor));
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("register plugin \"", name, "\": a plugin with this name already exists"));
  }
  return absl::OkStatus();
}

absl::Status Registry::Register(absl::string_view name, PluginFactory factory) {
  return Register(name, PluginDescriptor{.factory = std::move(factory)});
}

absl::Status Registry::Unregister(absl::string_view name) {
  const auto it = descriptors_.find(name);
  if (it == descriptors_.end()) {
    return absl::NotFoundError(absl::StrCat("unregister plugin \"", name, "\": not registered"));
  }
  descriptors_.erase(it);
  return absl::OkStatus();
}

absl::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, descriptor] : other.descriptors_) {
    if (absl::Status s = Register(name, descriptor); !s.ok()) return s;
  }
  return absl::OkStatus();
}

const PluginDescriptor* Registry::Find(absl::string_view name) const {
  const auto it = descriptors_.find(name);
  return it == descriptors_.end() ? nullptr : &it->second;
}

bool Registry::Implements(absl::string_view name, ExtensionPoint point) const {
  const PluginDescriptor* descriptor = Find(name);
  return descriptor != nullptr && descriptor->Implements(point);
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  names.reserve(descriptors_.size());
  for (const auto& [name, descriptor] : descriptors_) names.push_back(name);
  return names;
}

}  // namespace trimaran::sched
