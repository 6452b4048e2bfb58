// JSON codec: node selectors, affinity, tolerations and topology spread constraints.

#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, NodeSelectorRequirement& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "key") return Read(fv, fp, out.key);
                        if (k == "operator") return Read(fv, fp, out.op);
                        if (k == "values") return Read(fv, fp, out.values);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeSelectorTerm& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "matchExpressions") return Read(fv, fp, out.match_expressions);
                        if (k == "matchFields") return Read(fv, fp, out.match_fields);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeSelector& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "nodeSelectorTerms") return Read(fv, fp, out.node_selector_terms);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PreferredSchedulingTerm& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "weight") return Read(fv, fp, out.weight);
                        if (k == "preference") return Read(fv, fp, out.preference);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeAffinity& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
                          return Read(fv, fp, out.required);
                        }
                        if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
                          return Read(fv, fp, out.preferred);
                        }
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodAffinityTerm& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "labelSelector") return Read(fv, fp, out.label_selector);
                        if (k == "namespaces") return Read(fv, fp, out.namespaces);
                        if (k == "topologyKey") return Read(fv, fp, out.topology_key);
                        if (k == "namespaceSelector") return Read(fv, fp, out.namespace_selector);
                        if (k == "matchLabelKeys") return Read(fv, fp, out.match_label_keys);
                        if (k == "mismatchLabelKeys") return Read(fv, fp, out.mismatch_label_keys);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, WeightedPodAffinityTerm& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "weight") return Read(fv, fp, out.weight);
                        if (k == "podAffinityTerm") return Read(fv, fp, out.pod_affinity_term);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodAffinity& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
                          return Read(fv, fp, out.required);
                        }
                        if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
                          return Read(fv, fp, out.preferred);
                        }
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Affinity& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "nodeAffinity") return Read(fv, fp, out.node_affinity);
                        if (k == "podAffinity") return Read(fv, fp, out.pod_affinity);
                        if (k == "podAntiAffinity") return Read(fv, fp, out.pod_anti_affinity);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Toleration& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "key") return Read(fv, fp, out.key);
                        if (k == "operator") return Read(fv, fp, out.op);
                        if (k == "value") return Read(fv, fp, out.value);
                        if (k == "effect") return Read(fv, fp, out.effect);
                        if (k == "tolerationSeconds") return Read(fv, fp, out.toleration_seconds);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, TopologySpreadConstraint& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "maxSkew") return Read(fv, fp, out.max_skew);
                        if (k == "topologyKey") return Read(fv, fp, out.topology_key);
                        if (k == "whenUnsatisfiable") return Read(fv, fp, out.when_unsatisfiable);
                        if (k == "labelSelector") return Read(fv, fp, out.label_selector);
                        if (k == "minDomains") return Read(fv, fp, out.min_domains);
                        if (k == "nodeAffinityPolicy")
                          return Read(fv, fp, out.node_affinity_policy);
                        if (k == "nodeTaintsPolicy") return Read(fv, fp, out.node_taints_policy);
                        if (k == "matchLabelKeys") return Read(fv, fp, out.match_label_keys);
                        return absl::OkStatus();
                      });
}

void Write(Writer& w, const NodeSelectorRequirement& v) {
  w.StartObject();
  StringField(w, "key", v.key);
  StringField(w, "operator", ToString(v.op));
  StringArrayField(w, "values", v.values);
  w.EndObject();
}

void Write(Writer& w, const NodeSelectorTerm& v) {
  w.StartObject();
  ArrayField(w, "matchExpressions", v.match_expressions);
  ArrayField(w, "matchFields", v.match_fields);
  w.EndObject();
}

void Write(Writer& w, const NodeSelector& v) {
  w.StartObject();
  Key(w, "nodeSelectorTerms");
  w.StartArray();
  for (const NodeSelectorTerm& t : v.node_selector_terms) Write(w, t);
  w.EndArray();
  w.EndObject();
}

void Write(Writer& w, const PreferredSchedulingTerm& v) {
  w.StartObject();
  Key(w, "weight");
  w.Int(v.weight);
  Key(w, "preference");
  Write(w, v.preference);
  w.EndObject();
}

void Write(Writer& w, const NodeAffinity& v) {
  w.StartObject();
  if (v.required) {
    Key(w, "requiredDuringSchedulingIgnoredDuringExecution");
    Write(w, *v.required);
  }
  ArrayField(w, "preferredDuringSchedulingIgnoredDuringExecution", v.preferred);
  w.EndObject();
}

void Write(Writer& w, const PodAffinityTerm& v) {
  w.StartObject();
  if (v.label_selector) {
    Key(w, "labelSelector");
    Write(w, *v.label_selector);
  }
  StringArrayField(w, "namespaces", v.namespaces);
  StringField(w, "topologyKey", v.topology_key);
  if (v.namespace_selector) {
    Key(w, "namespaceSelector");
    Write(w, *v.namespace_selector);
  }
  StringArrayField(w, "matchLabelKeys", v.match_label_keys);
  StringArrayField(w, "mismatchLabelKeys", v.mismatch_label_keys);
  w.EndObject();
}

void Write(Writer& w, const WeightedPodAffinityTerm& v) {
  w.StartObject();
  Key(w, "weight");
  w.Int(v.weight);
  Key(w, "podAffinityTerm");
  Write(w, v.pod_affinity_term);
  w.EndObject();
}

void Write(Writer& w, const PodAffinity& v) {
  w.StartObject();
  ArrayField(w, "requiredDuringSchedulingIgnoredDuringExecution", v.required);
  ArrayField(w, "preferredDuringSchedulingIgnoredDuringExecution", v.preferred);
  w.EndObject();
}

void Write(Writer& w, const Affinity& v) {
  w.StartObject();
  if (v.node_affinity) {
    Key(w, "nodeAffinity");
    Write(w, *v.node_affinity);
  }
  if (v.pod_affinity) {
    Key(w, "podAffinity");
    Write(w, *v.pod_affinity);
  }
  if (v.pod_anti_affinity) {
    Key(w, "podAntiAffinity");
    Write(w, *v.pod_anti_affinity);
  }
  w.EndObject();
}

void Write(Writer& w, const Toleration& v) {
  w.StartObject();
  OptStringField(w, "key", v.key);
  StringField(w, "operator", ToString(v.op));
  OptStringField(w, "value", v.value);
  OptStringField(w, "effect", ToString(v.effect));
  if (v.toleration_seconds) {
    Key(w, "tolerationSeconds");
    w.Int64(*v.toleration_seconds);
  }
  w.EndObject();
}

void Write(Writer& w, const TopologySpreadConstraint& v) {
  w.StartObject();
  Key(w, "maxSkew");
  w.Int(v.max_skew);
  StringField(w, "topologyKey", v.topology_key);
  StringField(w, "whenUnsatisfiable", ToString(v.when_unsatisfiable));
  if (v.label_selector) {
    Key(w, "labelSelector");
    Write(w, *v.label_selector);
  }
  if (v.min_domains) {
    Key(w, "minDomains");
    w.Int(*v.min_domains);
  }
  if (v.node_affinity_policy)
    StringField(w, "nodeAffinityPolicy", ToString(*v.node_affinity_policy));
  if (v.node_taints_policy) StringField(w, "nodeTaintsPolicy", ToString(*v.node_taints_policy));
  StringArrayField(w, "matchLabelKeys", v.match_label_keys);
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
