#include "kube/api/object_names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace trimaran::kube {
namespace {

bool IsAlnumLower(char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])? of at most `max` characters.
bool IsLabel(absl::string_view s, size_t max) {
  if (s.empty() || s.size() > max) return false;
  if (!IsAlnumLower(s.front()) || !IsAlnumLower(s.back())) return false;
  for (char c : s) {
    if (!IsAlnumLower(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

bool IsDns1123Label(absl::string_view name) { return IsLabel(name, 63); }

bool IsDns1123Subdomain(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(name, '.')) {
    if (!IsLabel(label, 253)) return false;
  }
  return true;
}

}  // namespace trimaran::kube
