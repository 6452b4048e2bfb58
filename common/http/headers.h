#pragma once
// Headers: an ordered list of HTTP header fields with case-insensitive name lookup
// (RFC 9110 field names are case-insensitive). Used by both the client seam
// (transport.h) and the server wrapper (http_server.h).
//
// Insertion order is kept, and repeated names are allowed (Add), because some fields
// (Set-Cookie, Warning) legitimately repeat; Set replaces every field of that name.
// Lookups are linear: requests carry a handful of fields.
//
// Thread-safety: a value type; externally synchronized (const methods may be called
// concurrently).

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace trimaran::http {

class Headers {
 public:
  using Field = std::pair<std::string, std::string>;
  using const_iterator = std::vector<Field>::const_iterator;

  Headers() = default;
  Headers(std::initializer_list<Field> fields) : fields_(fields) {}

  // Appends a field, keeping any existing field of the same name.
  void Add(std::string name, std::string value);
  // Replaces every field named `name` (any case) by one field with `value`.
  void Set(std::string name, std::string value);
  // Removes every field named `name` (any case). Returns how many were removed.
  int Remove(absl::string_view name);

  // The value of the first field named `name` (any case), or nullopt.
  std::optional<absl::string_view> Get(absl::string_view name) const;
  // Get(name) or "" when absent.
  absl::string_view GetOr(absl::string_view name, absl::string_view fallback = "") const;
  bool Has(absl::string_view name) const { return Get(name).has_value(); }
  // Every value of fields named `name`, in order.
  std::vector<absl::string_view> GetAll(absl::string_view name) const;

  bool empty() const { return fields_.empty(); }
  size_t size() const { return fields_.size(); }
  const_iterator begin() const { return fields_.begin(); }
  const_iterator end() const { return fields_.end(); }
  void clear() { fields_.clear(); }

  friend bool operator==(const Headers&, const Headers&) = default;

 private:
  std::vector<Field> fields_;
};

}  // namespace trimaran::http
