#include "kube/api/selector_object.h"

namespace trimaran::kube {

std::string_view PluralName(SelectorResource resource) {
  switch (resource) {
    case SelectorResource::kNamespaces:
      return "namespaces";
    case SelectorResource::kServices:
      return "services";
    case SelectorResource::kReplicationControllers:
      return "replicationcontrollers";
    case SelectorResource::kReplicaSets:
      return "replicasets";
    case SelectorResource::kStatefulSets:
      return "statefulsets";
    case SelectorResource::kPodDisruptionBudgets:
    case SelectorResource::kPodDisruptionBudgetsV1beta1:
      return "poddisruptionbudgets";
  }
  return "";
}

std::string_view KindName(SelectorResource resource) {
  switch (resource) {
    case SelectorResource::kNamespaces:
      return "Namespace";
    case SelectorResource::kServices:
      return "Service";
    case SelectorResource::kReplicationControllers:
      return "ReplicationController";
    case SelectorResource::kReplicaSets:
      return "ReplicaSet";
    case SelectorResource::kStatefulSets:
      return "StatefulSet";
    case SelectorResource::kPodDisruptionBudgets:
    case SelectorResource::kPodDisruptionBudgetsV1beta1:
      return "PodDisruptionBudget";
  }
  return "";
}

std::string_view ListKindName(SelectorResource resource) {
  switch (resource) {
    case SelectorResource::kNamespaces:
      return "NamespaceList";
    case SelectorResource::kServices:
      return "ServiceList";
    case SelectorResource::kReplicationControllers:
      return "ReplicationControllerList";
    case SelectorResource::kReplicaSets:
      return "ReplicaSetList";
    case SelectorResource::kStatefulSets:
      return "StatefulSetList";
    case SelectorResource::kPodDisruptionBudgets:
    case SelectorResource::kPodDisruptionBudgetsV1beta1:
      return "PodDisruptionBudgetList";
  }
  return "";
}

std::string_view ApiVersionOf(SelectorResource resource) {
  switch (resource) {
    case SelectorResource::kReplicaSets:
    case SelectorResource::kStatefulSets:
      return "apps/v1";
    case SelectorResource::kPodDisruptionBudgets:
      return "policy/v1";
    case SelectorResource::kPodDisruptionBudgetsV1beta1:
      return "policy/v1beta1";
    default:
      return "v1";
  }
}

std::string_view CollectionPath(SelectorResource resource) {
  switch (resource) {
    case SelectorResource::kNamespaces:
      return "/api/v1/namespaces";
    case SelectorResource::kServices:
      return "/api/v1/services";
    case SelectorResource::kReplicationControllers:
      return "/api/v1/replicationcontrollers";
    case SelectorResource::kReplicaSets:
      return "/apis/apps/v1/replicasets";
    case SelectorResource::kStatefulSets:
      return "/apis/apps/v1/statefulsets";
    case SelectorResource::kPodDisruptionBudgets:
      return "/apis/policy/v1/poddisruptionbudgets";
    case SelectorResource::kPodDisruptionBudgetsV1beta1:
      return "/apis/policy/v1beta1/poddisruptionbudgets";
  }
  return "";
}

}  // namespace trimaran::kube
