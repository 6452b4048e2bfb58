#include "scheduler/plugins/load_aware/args_decoding.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched::plugins::load_aware {

void FieldErrors::Add(absl::string_view path, absl::string_view message) {
  list_.push_back(absl::StrCat(path.empty() ? "args" : path, ": ", message));
}

absl::Status FieldErrors::ToStatus() const {
  if (list_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(list_, "; "));
}

std::string ChildPath(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

bool Present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   const std::vector<absl::string_view>& known, FieldErrors& errors) {
  if (!node.IsMap()) {
    errors.Add(path, "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      errors.Add(path, "keys must be strings");
      continue;
    }
    const std::string& key = entry.first.Scalar();
    bool found = false;
    for (absl::string_view k : known) found = found || k == key;
    if (!found) errors.Add(ChildPath(path, key), "unknown field");
  }
  return true;
}

bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   std::initializer_list<absl::string_view> known, FieldErrors& errors) {
  return DecodeMapKeys(node, path, std::vector<absl::string_view>(known), errors);
}

std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors) {
  if (!node.IsScalar()) {
    errors.Add(path, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> DecodeInt(const YAML::Node& node, absl::string_view path,
                                 FieldErrors& errors) {
  int64_t v = 0;
  if (node.IsScalar() && absl::SimpleAtoi(node.Scalar(), &v)) return v;
  errors.Add(path, "must be an integer");
  return std::nullopt;
}

std::optional<double> DecodeDouble(const YAML::Node& node, absl::string_view path,
                                   FieldErrors& errors) {
  double v = 0;
  if (node.IsScalar() && absl::SimpleAtod(node.Scalar(), &v) && std::isfinite(v)) return v;
  errors.Add(path, "must be a finite number");
  return std::nullopt;
}

std::optional<bool> DecodeBool(const YAML::Node& node, absl::string_view path,
                               FieldErrors& errors) {
  if (node.IsScalar()) {
    const std::string v = absl::AsciiStrToLower(node.Scalar());
    if (v == "true") return true;
    if (v == "false") return false;
  }
  errors.Add(path, "must be true or false");
  return std::nullopt;
}

void CheckKind(const YAML::Node& node, absl::string_view path, absl::string_view kind,
               FieldErrors& errors) {
  if (!Present(node["kind"])) return;
  const std::string kind_path = ChildPath(path, "kind");
  const std::optional<std::string> got = DecodeString(node["kind"], kind_path, errors);
  if (got.has_value() && *got != kind) {
    errors.Add(kind_path, absl::StrCat("must be \"", kind, "\", got \"", *got, "\""));
  }
}

}  // namespace trimaran::sched::plugins::load_aware
