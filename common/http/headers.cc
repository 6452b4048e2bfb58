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

int Headers::Remove(absl::string_view name) {
  auto it = std::remove_if(fields_.begin(), fields_.end(), [name](const Field& f) {
    return absl::EqualsIgnoreCase(f.first, name);
  });
  int removed = static_cast<int>(fields_.end() - it);
  fields_.erase(it, fields_.end());
  return removed;
}

std::optional<absl::string_view> Headers::Get(absl::string_view name) const {
  for (const Field& f : fields_) {
    if (absl::EqualsIgnoreCase(f.first, name)) return absl::string_view(f.second);
  }
  return std::nullopt;
}

absl::string_view Headers::GetOr(absl::string_view name, absl::string_view fallback) const {
  std::optional<absl::string_view> v = Get(name);
  return v.has_value() ? *v : fallback;
}

std::vector<absl::string_view> Headers::GetAll(absl::string_view name) const {
  std::vector<absl::string_view> out;
  for (const Field& f : fields_) {
    if (absl::EqualsIgnoreCase(f.first, name)) out.emplace_back(f.second);
  }
  return out;
}

}  // namespace trimaran::http
