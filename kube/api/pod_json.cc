// JSON codec: Pod and its parts.

#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, ContainerPort& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "containerPort") return Read(fv, fp, out.container_port);
                        if (k == "hostPort") return Read(fv, fp, out.host_port);
                        if (k == "protocol") return Read(fv, fp, out.protocol);
                        if (k == "hostIP") return Read(fv, fp, out.host_ip);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ResourceRequirements& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "requests") return Read(fv, fp, out.requests);
                        if (k == "limits") return Read(fv, fp, out.limits);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Container& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "image") return Read(fv, fp, out.image);
                        if (k == "resources") return Read(fv, fp, out.resources);
                        if (k == "ports") return Read(fv, fp, out.ports);
                        if (k == "restartPolicy") return Read(fv, fp, out.restart_policy);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodSchedulingGate& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodResourceClaim& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "resourceClaimName") return Read(fv, fp, out.resource_claim_name);
                        if (k == "resourceClaimTemplateName") {
                          return Read(fv, fp, out.resource_claim_template_name);
                        }
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodSchedulingGroup& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "podGroupName") return Read(fv, fp, out.pod_group_name);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodSpec& out) {
  TRIMARAN_RETURN_IF_ERROR(ForEachField(
      v, path, [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
        // Most frequent and most important first.
        if (k == "containers") return Read(fv, fp, out.containers);
        if (k == "initContainers") return Read(fv, fp, out.init_containers);
        if (k == "nodeName") return Read(fv, fp, out.node_name);
        if (k == "schedulerName") return Read(fv, fp, out.scheduler_name);
        if (k == "priority") return Read(fv, fp, out.priority);
        if (k == "tolerations") return Read(fv, fp, out.tolerations);
        if (k == "nodeSelector") return Read(fv, fp, out.node_selector);
        if (k == "affinity") return Read(fv, fp, out.affinity);
        if (k == "overhead") return Read(fv, fp, out.overhead);
        if (k == "priorityClassName") return Read(fv, fp, out.priority_class_name);
        if (k == "preemptionPolicy") return Read(fv, fp, out.preemption_policy);
        if (k == "topologySpreadConstraints") return Read(fv, fp, out.topology_spread_constraints);
        if (k == "schedulingGates") return Read(fv, fp, out.scheduling_gates);
        if (k == "volumes") return Read(fv, fp, out.volumes);
        if (k == "resources") return Read(fv, fp, out.resources);
        if (k == "hostNetwork") return Read(fv, fp, out.host_network);
        if (k == "resourceClaims") return Read(fv, fp, out.resource_claims);
        if (k == "schedulingGroup") return Read(fv, fp, out.scheduling_group);
        return absl::OkStatus();
      }));
  // The apiserver defaults an empty schedulerName.
  if (out.scheduler_name.empty()) out.scheduler_name = kDefaultSchedulerName;
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, PodCondition& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "type") return Read(fv, fp, out.type);
                        if (k == "status") return Read(fv, fp, out.status);
                        if (k == "observedGeneration") return Read(fv, fp, out.observed_generation);
                        if (k == "lastProbeTime") return Read(fv, fp, out.last_probe_time);
                        if (k == "lastTransitionTime") {
                          return Read(fv, fp, out.last_transition_time);
                        }
                        if (k == "reason") return Read(fv, fp, out.reason);
                        if (k == "message") return Read(fv, fp, out.message);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ContainerStatus& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "allocatedResources") {
                          return Read(fv, fp, out.allocated_resources);
                        }
                        if (k == "resources") return Read(fv, fp, out.resources);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodStatus& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "phase") return Read(fv, fp, out.phase);
                        if (k == "conditions") return Read(fv, fp, out.conditions);
                        if (k == "nominatedNodeName") return Read(fv, fp, out.nominated_node_name);
                        if (k == "startTime") return Read(fv, fp, out.start_time);
                        if (k == "containerStatuses") return Read(fv, fp, out.container_statuses);
                        if (k == "initContainerStatuses")
                          return Read(fv, fp, out.init_container_statuses);
                        if (k == "allocatedResources") return Read(fv, fp, out.allocated_resources);
                        if (k == "resources") return Read(fv, fp, out.resources);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Pod& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Pod"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "spec") return Read(fv, fp, out.spec);
                        if (k == "status") return Read(fv, fp, out.status);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodStatusPatch& out) {
  return ForEachField(
      v, path, [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
        if (k != "status") return absl::OkStatus();
        return ForEachField(
            fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) -> absl::Status {
              if (sk == "conditions") return Read(sv, sp, out.conditions);
              if (sk == "nominatedNodeName") {
                // null deletes the field, which reads as "".
                out.nominated_node_name.emplace();
                return Read(sv, sp, *out.nominated_node_name);
              }
              if (sk == "$setElementOrder/conditions") {
                std::vector<PodCondition> order;
                TRIMARAN_RETURN_IF_ERROR(Read(sv, sp, order));
                out.condition_order.clear();
                for (PodCondition& c : order) out.condition_order.push_back(std::move(c.type));
              }
              return absl::OkStatus();
            });
      });
}

void Write(Writer& w, const ContainerPort& v) {
  w.StartObject();
  OptStringField(w, "name", v.name);
  Key(w, "containerPort");
  w.Int(v.container_port);
  if (v.host_port != 0) {
    Key(w, "hostPort");
    w.Int(v.host_port);
  }
  StringField(w, "protocol", ToString(v.protocol));
  OptStringField(w, "hostIP", v.host_ip);
  w.EndObject();
}

void Write(Writer& w, const ResourceRequirements& v) {
  w.StartObject();
  ResourceListField(w, "limits", v.limits);
  ResourceListField(w, "requests", v.requests);
  w.EndObject();
}

void Write(Writer& w, const Container& v) {
  w.StartObject();
  StringField(w, "name", v.name);
  OptStringField(w, "image", v.image);
  ArrayField(w, "ports", v.ports);
  Key(w, "resources");
  Write(w, v.resources);
  OptStringField(w, "restartPolicy", ToString(v.restart_policy));
  w.EndObject();
}

void Write(Writer& w, const PodSchedulingGate& v) {
  w.StartObject();
  StringField(w, "name", v.name);
  w.EndObject();
}

void Write(Writer& w, const PodResourceClaim& v) {
  w.StartObject();
  StringField(w, "name", v.name);
  OptStringField(w, "resourceClaimName", v.resource_claim_name);
  OptStringField(w, "resourceClaimTemplateName", v.resource_claim_template_name);
  w.EndObject();
}

void Write(Writer& w, const PodSchedulingGroup& v) {
  w.StartObject();
  OptStringField(w, "podGroupName", v.pod_group_name);
  w.EndObject();
}

void Write(Writer& w, const PodSpec& v) {
  w.StartObject();
  ArrayField(w, "initContainers", v.init_containers);
  Key(w, "containers");
  w.StartArray();
  for (const Container& c : v.containers) Write(w, c);
  w.EndArray();
  StringMapField(w, "nodeSelector", v.node_selector);
  OptStringField(w, "nodeName", v.node_name);
  if (v.host_network) {
    Key(w, "hostNetwork");
    w.Bool(true);
  }
  if (v.affinity) {
    Key(w, "affinity");
    Write(w, *v.affinity);
  }
  OptStringField(w, "schedulerName", v.scheduler_name);
  ArrayField(w, "tolerations", v.tolerations);
  OptStringField(w, "priorityClassName", v.priority_class_name);
  if (v.priority) {
    Key(w, "priority");
    w.Int(*v.priority);
  }
  if (v.preemption_policy) StringField(w, "preemptionPolicy", ToString(*v.preemption_policy));
  ResourceListField(w, "overhead", v.overhead);
  ArrayField(w, "topologySpreadConstraints", v.topology_spread_constraints);
  ArrayField(w, "schedulingGates", v.scheduling_gates);
  ArrayField(w, "volumes", v.volumes);
  if (v.resources) {
    Key(w, "resources");
    Write(w, *v.resources);
  }
  ArrayField(w, "resourceClaims", v.resource_claims);
  if (v.scheduling_group) {
    Key(w, "schedulingGroup");
    Write(w, *v.scheduling_group);
  }
  w.EndObject();
}

void Write(Writer& w, const PodCondition& v) {
  w.StartObject();
  StringField(w, "type", v.type);
  StringField(w, "status", ToString(v.status));
  if (v.observed_generation) {
    Key(w, "observedGeneration");
    w.Int64(*v.observed_generation);
  }
  // As Go serializes a zero metav1.Time.
  Key(w, "lastProbeTime");
  if (v.last_probe_time) {
    String(w, TimeString(*v.last_probe_time));
  } else {
    w.Null();
  }
  if (v.last_transition_time) TimeField(w, "lastTransitionTime", *v.last_transition_time);
  OptStringField(w, "reason", v.reason);
  OptStringField(w, "message", v.message);
  w.EndObject();
}

void Write(Writer& w, const ContainerStatus& v) {
  w.StartObject();
  StringField(w, "name", v.name);
  if (v.allocated_resources) ResourceListField(w, "allocatedResources", *v.allocated_resources);
  if (v.resources) {
    Key(w, "resources");
    Write(w, *v.resources);
  }
  w.EndObject();
}

void Write(Writer& w, const PodStatus& v) {
  w.StartObject();
  StringField(w, "phase", ToString(v.phase));
  ArrayField(w, "conditions", v.conditions);
  OptStringField(w, "nominatedNodeName", v.nominated_node_name);
  if (v.start_time) TimeField(w, "startTime", *v.start_time);
  ArrayField(w, "containerStatuses", v.container_statuses);
  ArrayField(w, "initContainerStatuses", v.init_container_statuses);
  if (v.allocated_resources) ResourceListField(w, "allocatedResources", *v.allocated_resources);
  if (v.resources) {
    Key(w, "resources");
    Write(w, *v.resources);
  }
  w.EndObject();
}

void Write(Writer& w, const Pod& v) {
  w.StartObject();
  StringField(w, "kind", "Pod");
  StringField(w, "apiVersion", "v1");
  Key(w, "metadata");
  Write(w, v.metadata);
  Key(w, "spec");
  Write(w, v.spec);
  Key(w, "status");
  Write(w, v.status);
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
