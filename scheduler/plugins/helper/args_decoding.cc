#include "scheduler/plugins/helper/args_decoding.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"

namespace trimaran::sched::plugins::helper {

void FieldErrors::Add(absl::string_view path, absl::string_view message) {
  list_.push_back(absl::StrCat(path, ": ", message));
}

absl::Status FieldErrors::ToStatus() const {
  if (list_.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(list_, "; "));
}

std::string ChildPath(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

std::string IndexPath(absl::string_view path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

std::string RootPath(absl::string_view path) {
  return path.empty() ? std::string("args") : std::string(path);
}

bool Present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

bool DecodeMapKeys(const YAML::Node& node, absl::string_view path,
                   const std::vector<absl::string_view>& known, FieldErrors& errors) {
  if (!node.IsMap()) {
    errors.Add(RootPath(path), "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      errors.Add(RootPath(path), "keys must be strings");
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

void CheckKind(const YAML::Node& node, absl::string_view path, absl::string_view kind,
               FieldErrors& errors) {
  if (!Present(node["kind"])) return;
  const std::string kind_path = ChildPath(path, "kind");
  const std::optional<std::string> got = DecodeString(node["kind"], kind_path, errors);
  if (got.has_value() && *got != kind) {
    errors.Add(kind_path, absl::StrCat("must be \"", kind, "\", got \"", *got, "\""));
  }
}

bool DecodeList(const YAML::Node& node, absl::string_view path, FieldErrors& errors,
                absl::FunctionRef<void(const YAML::Node& item, const std::string& item_path)> item,
                absl::string_view not_a_list) {
  if (!node.IsSequence()) {
    errors.Add(path, not_a_list);
    return false;
  }
  for (size_t i = 0; i < node.size(); ++i) item(node[i], IndexPath(path, i));
  return true;
}

bool DecodeArgsFields(const PluginArgs& args, absl::string_view kind, FieldErrors& errors,
                      absl::FunctionRef<bool(const ArgsField& field)> decode) {
  const YAML::Node& node = args.args;
  if (!Present(node)) return false;
  if (!node.IsMap()) {
    errors.Add(RootPath(args.path), "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    std::string path = ChildPath(args.path, key);
    const ArgsField field{std::move(key), std::move(path), entry.second};
    if (field.key == "apiVersion") continue;
    if (field.key == "kind") {
      if (!field.value.IsScalar() || field.value.Scalar() != kind) {
        errors.Add(field.path, absl::StrCat("must be \"", kind, "\""));
      }
    } else if (!decode(field)) {
      errors.Add(field.path, "unknown field");
    }
  }
  return true;
}

std::optional<int64_t> DecodeIntInRange(const YAML::Node& node, absl::string_view path, int64_t min,
                                        int64_t max, FieldErrors& errors) {
  const std::optional<int64_t> v = DecodeInt(node, path, errors);
  if (!v.has_value()) return std::nullopt;
  if (*v < min || *v > max) {
    errors.AddInvalidValue(path, *v, absl::StrCat("not in valid range [", min, ", ", max, "]"));
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> DecodeDecimalInt(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors) {
  int64_t v = 0;
  if (node.IsScalar() && absl::SimpleAtoi(node.Scalar(), &v)) return v;
  errors.Add(path, "must be an integer");
  return std::nullopt;
}

std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        FieldErrors& errors) {
  if (!node.IsScalar()) {
    errors.Add(path, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
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

}  // namespace trimaran::sched::plugins::helper
