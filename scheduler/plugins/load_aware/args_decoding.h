#pragma once
// Strict YAML decoding helpers shared by the Trimaran plugins' args (TargetLoadPacking,
// LoadVariationRiskBalancing, LowRiskOverCommitment): a field-error list whose entries
// start with the field path ("profiles[0].pluginConfig[1].args.targetUtilization: ..."),
// and typed scalar decoders that report instead of throwing. Same conventions as the
// in-tree args decoders (node_resources_fit/args.cc): unknown fields are errors, every
// error is reported, errors are joined with "; ".
//
// Thread-safety: FieldErrors is a value (not shared); the functions are pure.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins::load_aware {

class FieldErrors {
 public:
  void Add(absl::string_view path, absl::string_view message);
  bool empty() const { return list_.empty(); }
  // OK, or InvalidArgument with every error joined by "; ".
  absl::Status ToStatus() const;

 private:
  std::vector<std::string> list_;
};

// "path.field" ("field" when path is empty).
std::string ChildPath(absl::string_view path, absl::string_view field);

// Defined and not null.
bool Present(const YAML::Node& node);

// Checks that `node` is a mapping whose keys are all in `known`; false (with an error)
// when it is not a mapping.
bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   std::initializer_list<absl::string_view> known, FieldErrors& errors);
// Same, with the known keys as a vector.
bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   const std::vector<absl::string_view>& known, FieldErrors& errors);

std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors);
std::optional<int64_t> DecodeInt(const YAML::Node& node, absl::string_view path,
                                 FieldErrors& errors);
// A finite number.
std::optional<double> DecodeDouble(const YAML::Node& node, absl::string_view path,
                                   FieldErrors& errors);
std::optional<bool> DecodeBool(const YAML::Node& node, absl::string_view path, FieldErrors& errors);

// Accepts `apiVersion`; `kind`, when present, must equal `kind`.
void CheckKind(const YAML::Node& node, absl::string_view path, absl::string_view kind,
               FieldErrors& errors);

}  // namespace trimaran::sched::plugins::load_aware
