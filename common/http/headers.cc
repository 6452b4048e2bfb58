#include "common/http/headers.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace trimaran::http {

void Headers::Add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  fields_.emplace_back(std::move(name), std::move(value));
}

int Headers::Remove(std::string_view name) {
  auto it = std::remove_if(fields_.begin(), fields_.end(), [name](const Field& f) {
    return absl::EqualsIgnoreCase(f.first, name);
  });
  int removed = static_cast<int>(fields_.end() - it);
  fields_.erase(it, fields_.end());
  return removed;
}

std::optional<std::string_view> Headers::Get(std::string_view name) const {
  for (const Field& f : fields_) {
    if (absl::EqualsIgnoreCase(f.first, name)) return std::string_view(f.second);
  }
  return std::nullopt;
}

std::string_view Headers::GetOr(std::string_view name, std::string_view fallback) const {
  std::optional<std::string_view> v = Get(name);
  return v.has_value() ? *v : fallback;
}

std::vector<std::string_view> Headers::GetAll(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const Field& f : fields_) {
    if (absl::EqualsIgnoreCase(f.first, name)) out.emplace_back(f.second);
  }
  return out;
}

}  // namespace trimaran::http
