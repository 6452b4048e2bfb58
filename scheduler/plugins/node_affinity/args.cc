#include "scheduler/plugins/node_affinity/args.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/plugins/helper/args_decoding.h"
#include "scheduler/plugins/helper/node_affinity.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

// Collects every decoding error with its field path.
class Decoder {
 public:
  std::vector<std::string>& errors() { return errors_; }

  // Requires `node` to be a mapping whose keys are all in `allowed`.
  bool ExpectMap(const YAML::Node& node, absl::string_view path,
                 std::initializer_list<absl::string_view> allowed) {
    if (!node.IsMap()) {
      Error(path, "Invalid type: expected an object");
      return false;
    }
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      bool known = false;
      for (absl::string_view a : allowed) known = known || a == key;
      if (!known) Error(absl::StrCat(path, ".", key), "unknown field");
    }
    return true;
  }

  bool ExpectSeq(const YAML::Node& node, absl::string_view path) {
    if (node.IsSequence()) return true;
    Error(path, "Invalid type: expected an array");
    return false;
  }

  bool String(const YAML::Node& node, absl::string_view path, std::string& out) {
    if (!node.IsScalar()) {
      Error(path, "Invalid type: expected a string");
      return false;
    }
    out = node.Scalar();
    return true;
  }

  void Requirement(const YAML::Node& node, absl::string_view path,
                   kube::NodeSelectorRequirement& out) {
    if (!ExpectMap(node, path, {"key", "operator", "values"})) return;
    if (const YAML::Node key = node["key"]) String(key, absl::StrCat(path, ".key"), out.key);
    std::string op;
    const std::string op_path = absl::StrCat(path, ".operator");
    if (const YAML::Node n = node["operator"]; !n) {
      Error(op_path, "Required value");
    } else if (String(n, op_path, op)) {
      using Op = kube::NodeSelectorOperator;
      bool found = false;
      for (Op candidate : {Op::kIn, Op::kNotIn, Op::kExists, Op::kDoesNotExist, Op::kGt, Op::kLt}) {
        if (kube::ToString(candidate) == op) {
          out.op = candidate;
          found = true;
        }
      }
      if (!found) {
        Error(op_path, absl::StrCat("Unsupported value: \"", op,
                                    "\": supported values: \"DoesNotExist\", \"Exists\", "
                                    "\"Gt\", \"In\", \"Lt\", \"NotIn\""));
      }
    }
    if (const YAML::Node values = node["values"]; values && !values.IsNull()) {
      const std::string vpath = absl::StrCat(path, ".values");
      if (ExpectSeq(values, vpath)) {
        for (size_t i = 0; i < values.size(); ++i) {
          std::string v;
          if (String(values[i], absl::StrCat(vpath, "[", i, "]"), v)) {
            out.values.push_back(std::move(v));
          }
        }
      }
    }
  }

  void Requirements(const YAML::Node& node, absl::string_view path,
                    std::vector<kube::NodeSelectorRequirement>& out) {
    if (!node || node.IsNull() || !ExpectSeq(node, path)) return;
    out.resize(node.size());
    for (size_t i = 0; i < node.size(); ++i) {
      Requirement(node[i], absl::StrCat(path, "[", i, "]"), out[i]);
    }
  }

  void Term(const YAML::Node& node, absl::string_view path, kube::NodeSelectorTerm& out) {
    if (!ExpectMap(node, path, {"matchExpressions", "matchFields"})) return;
    Requirements(node["matchExpressions"], absl::StrCat(path, ".matchExpressions"),
                 out.match_expressions);
    Requirements(node["matchFields"], absl::StrCat(path, ".matchFields"), out.match_fields);
  }

  void NodeSelector(const YAML::Node& node, absl::string_view path, kube::NodeSelector& out) {
    if (!ExpectMap(node, path, {"nodeSelectorTerms"})) return;
    const YAML::Node terms = node["nodeSelectorTerms"];
    const std::string tpath = absl::StrCat(path, ".nodeSelectorTerms");
    if (!terms || terms.IsNull() || !ExpectSeq(terms, tpath)) return;
    out.node_selector_terms.resize(terms.size());
    for (size_t i = 0; i < terms.size(); ++i) {
      Term(terms[i], absl::StrCat(tpath, "[", i, "]"), out.node_selector_terms[i]);
    }
  }

  void Preferred(const YAML::Node& node, absl::string_view path,
                 std::vector<kube::PreferredSchedulingTerm>& out) {
    if (!node || node.IsNull() || !ExpectSeq(node, path)) return;
    out.resize(node.size());
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string ipath = absl::StrCat(path, "[", i, "]");
      const YAML::Node item = node[i];
      if (!ExpectMap(item, ipath, {"weight", "preference"})) continue;
      if (const YAML::Node w = item["weight"]) {
        int32_t weight = 0;
        if (!w.IsScalar() || !absl::SimpleAtoi(w.Scalar(), &weight)) {
          Error(absl::StrCat(ipath, ".weight"), "Invalid type: expected an integer");
        } else {
          out[i].weight = weight;
        }
      }
      if (const YAML::Node p = item["preference"]; p && !p.IsNull()) {
        Term(p, absl::StrCat(ipath, ".preference"), out[i].preference);
      }
    }
  }

  void Error(absl::string_view path, absl::string_view message) {
    errors_.push_back(absl::StrCat(path, ": ", message));
  }

 private:
  std::vector<std::string> errors_;
};

absl::Status ToStatus(const std::vector<std::string>& errors) {
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("invalid NodeAffinityArgs:\n", absl::StrJoin(errors, "\n")));
}

}  // namespace

NodeAffinityArgs DefaultNodeAffinityArgs() { return NodeAffinityArgs{}; }

absl::StatusOr<NodeAffinityArgs> DecodeNodeAffinityArgs(const PluginArgs& args) {
  NodeAffinityArgs out = DefaultNodeAffinityArgs();
  const YAML::Node& root = args.args;
  if (!helper::Present(root)) return out;
  Decoder d;
  const std::string root_path = helper::RootPath(args.path);
  if (d.ExpectMap(root, root_path, {"apiVersion", "kind", "addedAffinity"})) {
    if (const YAML::Node added = root["addedAffinity"]; helper::Present(added)) {
      const std::string path = helper::ChildPath(args.path, "addedAffinity");
      if (d.ExpectMap(added, path,
                      {"requiredDuringSchedulingIgnoredDuringExecution",
                       "preferredDuringSchedulingIgnoredDuringExecution"})) {
        kube::NodeAffinity affinity;
        if (const YAML::Node req = added["requiredDuringSchedulingIgnoredDuringExecution"];
            req && !req.IsNull()) {
          affinity.required.emplace();
          d.NodeSelector(req, absl::StrCat(path, ".requiredDuringSchedulingIgnoredDuringExecution"),
                         *affinity.required);
        }
        d.Preferred(added["preferredDuringSchedulingIgnoredDuringExecution"],
                    absl::StrCat(path, ".preferredDuringSchedulingIgnoredDuringExecution"),
                    affinity.preferred);
        out.added_affinity = std::move(affinity);
      }
    }
  }
  if (!d.errors().empty()) return ToStatus(d.errors());
  if (absl::Status s = ValidateNodeAffinityArgs(out, args.path); !s.ok()) return s;
  return out;
}

absl::Status ValidateNodeAffinityArgs(const NodeAffinityArgs& args, absl::string_view path) {
  if (!args.added_affinity.has_value()) return absl::OkStatus();
  std::vector<std::string> errors;
  const std::string base = helper::ChildPath(path, "addedAffinity");
  const kube::NodeAffinity& a = *args.added_affinity;
  if (a.required.has_value()) {
    const std::string rpath =
        absl::StrCat(base, ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    if (a.required->node_selector_terms.empty()) {
      errors.push_back(
          absl::StrCat(rpath, ": Required value: must have at least one node selector term"));
    }
    for (size_t i = 0; i < a.required->node_selector_terms.size(); ++i) {
      helper::ValidateNodeSelectorTerm(a.required->node_selector_terms[i],
                                       absl::StrCat(rpath, "[", i, "]"), errors);
    }
  }
  for (size_t i = 0; i < a.preferred.size(); ++i) {
    const std::string ppath =
        absl::StrCat(base, ".preferredDuringSchedulingIgnoredDuringExecution[", i, "]");
    const int32_t w = a.preferred[i].weight;
    if (w < 1 || w > 100) {
      errors.push_back(
          absl::StrCat(ppath, ".weight: Invalid value: ", w, ": must be in the range 1-100"));
    }
    helper::ValidateNodeSelectorTerm(a.preferred[i].preference, absl::StrCat(ppath, ".preference"),
                                     errors);
  }
  return ToStatus(errors);
}

}  // namespace trimaran::sched::plugins
