#include "scheduler/framework/registry.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {

absl::Status Registry::Register(absl::string_view name, PluginFactory factory) {
  if (name.empty()) return absl::InvalidArgumentError("register plugin: empty name");
  if (!factory) {
    return absl::InvalidArgumentError(absl::StrCat("register plugin \"", name, "\": no factory"));
  }
  const auto [it, inserted] = factories_.try_emplace(std::string(name), std::move(factory));
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("register plugin \"", name, "\": a plugin with this name already exists"));
  }
  return absl::OkStatus();
}

absl::Status Registry::Unregister(absl::string_view name) {
  const auto it = factories_.find(name);
  if (it == factories_.end()) {
    return absl::NotFoundError(absl::StrCat("unregister plugin \"", name, "\": not registered"));
  }
  factories_.erase(it);
  return absl::OkStatus();
}

absl::Status Registry::Merge(const Registry& other) {
  for (const auto& [name, factory] : other.factories_) {
    if (absl::Status s = Register(name, factory); !s.ok()) return s;
  }
  return absl::OkStatus();
}

const PluginFactory* Registry::Find(absl::string_view name) const {
  const auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  names.reserve(factories_.size());
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

}  // namespace trimaran::sched
