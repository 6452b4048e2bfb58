#pragma once
// The one set of helpers every plugin's args decoder (its folder's args.cc) is written
// with: strict YAML decoding of `PluginArgs` (framework/plugin_args.h) that reports
// every field error with its path ("profiles[0].pluginConfig[1].args.field: message")
// instead of throwing, and joins them with "; ".
//
// Two ways to walk the args mapping, as the decoders do today (their messages differ,
// and tests compare them):
//
// - field by field (`DecodeArgsFields`): `apiVersion` is accepted, `kind` must be the
//   plugin's kind (`<path>.kind: must be "<Kind>"`), each other key goes to the
//   plugin's callback, and a key it does not know is `<path>.<key>: unknown field`; the
//   errors come in the mapping's order. Coscheduling, DefaultPreemption,
//   InterPodAffinity, PodTopologySpread, VolumeBinding.
// - keys first (`DecodeMapKeys` + `CheckKind`): every unknown key is reported, then the
//   plugin reads the fields it knows in its own order (`kind` as `must be "<Kind>", got
//   "<kind>"`). NodeResourcesFit, NodeResourcesBalancedAllocation and the load-aware
//   plugins (and nested mappings everywhere).
//
// Either way, args that are absent or null decode to the plugin's defaults, and args
// that are not a mapping are `<path>: must be a mapping` ("args: ..." when the path is
// empty).
//
// Integers: `DecodeInt<T>` reads YAML's syntax (yaml-cpp's `YAML::convert<T>`: 0x and 0o
// prefixes, no surrounding blanks), as the in-tree decoders always have;
// `DecodeDecimalInt` reads `absl::SimpleAtoi`'s, as the load-aware decoders always have.
//
// Thread-safety: FieldErrors is a value (not shared); the functions are pure.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/plugin_args.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins::helper {

// Field errors, in the order found: each "path: message".
class FieldErrors {
 public:
  // Adds "path: message" (the path as given; see RootPath for the args themselves).
  void Add(absl::string_view path, absl::string_view message);
  // Adds "path: Invalid value: <value>: <detail>" (upstream's field.Invalid).
  template <typename T>
  void AddInvalidValue(absl::string_view path, const T& value, absl::string_view detail) {
    Add(path, absl::StrCat("Invalid value: ", value, ": ", detail));
  }

  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }

  // OK, or InvalidArgument with every error joined by "; ".
  absl::Status ToStatus() const;
  // `value` when there is no error, else ToStatus().
  template <typename T>
  absl::StatusOr<T> ToStatusOr(T value) const {
    if (list_.empty()) return value;
    return ToStatus();
  }

 private:
  std::vector<std::string> list_;
};

// "path.field" ("field" when path is empty).
std::string ChildPath(absl::string_view path, absl::string_view field);
// "path[i]".
std::string IndexPath(absl::string_view path, size_t i);
// The path errors about the args mapping itself are reported at: `path`, or "args" when
// it is empty (args that were not from a file).
std::string RootPath(absl::string_view path);

// Defined and not null.
bool Present(const YAML::Node& node);

// Checks that `node` is a mapping whose keys are all in `known`; false (with the error
// "<path>: must be a mapping") when it is not a mapping. A key that is not a string is
// "<path>: keys must be strings", an unknown one "<path>.<key>: unknown field".
bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   std::initializer_list<absl::string_view> known, FieldErrors& errors);
// Same, with the known keys as a vector.
bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   const std::vector<absl::string_view>& known, FieldErrors& errors);

// Accepts `apiVersion`; `kind`, when present, must be a string equal to `kind`.
void CheckKind(const YAML::Node& node, absl::string_view path, absl::string_view kind,
               FieldErrors& errors);

// Walks a list: false (with "<path>: <not_a_list>") when `node` is not a sequence; else
// `item(node[i], IndexPath(path, i))` for every element, in order.
bool DecodeList(const YAML::Node& node, absl::string_view path, FieldErrors& errors,
                absl::FunctionRef<void(const YAML::Node& item, const std::string& item_path)> item,
                absl::string_view not_a_list = "must be a list");

// One field of an args mapping, as DecodeArgsFields hands it to the plugin.
struct ArgsField {
  std::string key;         // "" when the key is not a scalar
  std::string path;        // ChildPath(args path, key)
  const YAML::Node value;  // the field's value
};

// Walks the args field by field (see the top of this file). Returns false when there
// is nothing more to check: the args are absent or null (no error), or not a mapping
// (the error is in `errors`); true once every field went through `decode`, which
// returns false for a key it does not know.
bool DecodeArgsFields(const PluginArgs& args, absl::string_view kind, FieldErrors& errors,
                      absl::FunctionRef<bool(const ArgsField& field)> decode);

// An integer in YAML's syntax (YAML::convert<Int>), or nullopt.
template <typename Int = int64_t>
std::optional<Int> ParseInt(const YAML::Node& node) {
  Int v = 0;
  if (!node.IsScalar() || !YAML::convert<Int>::decode(node, v)) return std::nullopt;
  return v;
}
// ParseInt, or nullopt with "<path>: must be an integer".
template <typename Int = int64_t>
std::optional<Int> DecodeInt(const YAML::Node& node, absl::string_view path, FieldErrors& errors) {
  std::optional<Int> v = ParseInt<Int>(node);
  if (!v.has_value()) errors.Add(path, "must be an integer");
  return v;
}
// DecodeInt<int64_t>, then `min <= v <= max` or nullopt with
// "<path>: Invalid value: <v>: not in valid range [<min>, <max>]".
std::optional<int64_t> DecodeIntInRange(const YAML::Node& node, absl::string_view path, int64_t min,
                                        int64_t max, FieldErrors& errors);

// A decimal integer (absl::SimpleAtoi), or nullopt with "<path>: must be an integer".
std::optional<int64_t> DecodeDecimalInt(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors);
// A scalar, or nullopt with "<path>: must be a string".
std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors);
// A finite number, or nullopt with "<path>: must be a finite number".
std::optional<double> DecodeDouble(const YAML::Node& node, absl::string_view path,
                                   FieldErrors& errors);
// true or false in any case, or nullopt with "<path>: must be true or false".
std::optional<bool> DecodeBool(const YAML::Node& node, absl::string_view path, FieldErrors& errors);

}  // namespace trimaran::sched::plugins::helper
