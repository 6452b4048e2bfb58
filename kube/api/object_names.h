#pragma once
// The apiserver's rules for object names, checked before a name goes into a request
// path: a DNS-1123 subdomain (pods, nodes: at most 253 characters of [a-z0-9-.], each
// dot-separated label starting and ending with [a-z0-9]) and a DNS-1123 label
// (namespaces: at most 63 characters of [a-z0-9-], starting and ending with [a-z0-9]).
// A name that passes contains no '/', '%', '?', '#' or "..": it is one path segment as is.
//
// Thread-safety: pure functions.

#include "absl/strings/string_view.h"

namespace trimaran::kube {

bool IsDns1123Label(absl::string_view name);
bool IsDns1123Subdomain(absl::string_view name);

}  // namespace trimaran::kube
