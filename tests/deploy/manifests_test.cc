// The shipped manifests (deploy/), rendered with the real `kubectl kustomize`: every
// overlay renders; the Deployment keeps its restricted security context, probes,
// resources and HA settings; RBAC is exactly the least-privilege rule set; the embedded
// KubeSchedulerConfiguration decodes strictly and is accepted by trimaran-scheduler.
#include "tests/deploy/manifests.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::deploy_testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

constexpr char kNamespace[] = "trimaran";
constexpr char kServiceAccount[] = "trimaran-scheduler";
constexpr char kWatcherServiceAccount[] = "trimaran-load-watcher";
constexpr char kTokenPath[] = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr char kLeaseName[] = "trimaran-scheduler";
constexpr char kWatcherAddress[] = "http://127.0.0.1:2020";

// What each kustomize directory must produce.
struct Expectation {
  std::string dir;                   // under deploy/
  bool sidecar = false;              // load-watcher container + its Service + env ConfigMap
  std::string provider;              // METRICS_PROVIDER_NAME of the sidecar
  bool token_from_secret = false;    // METRICS_PROVIDER_TOKEN via secretKeyRef
  bool metrics_server_rbac = false;  // metrics.k8s.io nodes list
  bool target_load_packing = false;  // TLP in the profile
  std::string watcher_address;       // TLP args watcherAddress ("" = absent)
  std::string metric_provider;       // TLP args metricProvider.type ("" = absent)
  // Watcher TLS (+ TLP args watcherCAFile). The bearer token (--token-file, TLP args
  // watcherTokenFile) is on with every sidecar.
  bool secured_watcher = false;
  // trimaran-scheduler --extender (docs/extender.md): extender port + Service, read-only
  // RBAC, no leader election, TargetLoadPacking the only scorer.
  bool extender = false;
};

// gtest prints the directory instead of the struct's bytes.
void PrintTo(const Expectation& e, std::ostream* os) { *os << e.dir; }

const std::vector<Expectation>& Expectations() {
  static const auto* const kAll = new std::vector<Expectation>{
      {.dir = "base",
       .sidecar = true,
       .provider = "KubernetesMetricsServer",
       .metrics_server_rbac = true,
       .target_load_packing = true,
       .watcher_address = kWatcherAddress},
      {.dir = "overlays/prometheus",
       .sidecar = true,
       .provider = "Prometheus",
       .token_from_secret = true,
       .target_load_packing = true,
       .watcher_address = kWatcherAddress},
      {.dir = "overlays/metrics-server",
       .sidecar = true,
       .provider = "KubernetesMetricsServer",
       .metrics_server_rbac = true,
       .target_load_packing = true,
       .watcher_address = kWatcherAddress},
      {.dir = "overlays/single-container",
       .metrics_server_rbac = true,
       .target_load_packing = true,
       .metric_provider = "KubernetesMetricsServer"},
      {.dir = "overlays/request-only"},
      {.dir = "overlays/extender",
       .sidecar = true,
       .provider = "KubernetesMetricsServer",
       .metrics_server_rbac = true,
       .target_load_packing = true,
       .watcher_address = kWatcherAddress,
       .extender = true},
      {.dir = "overlays/secure-load-watcher",
       .sidecar = true,
       .provider = "KubernetesMetricsServer",
       .metrics_server_rbac = true,
       .target_load_packing = true,
       .watcher_address = "https://127.0.0.1:2020",
       .secured_watcher = true},
  };
  return *kAll;
}

std::string Str(const YAML::Node& n) {
  return n.IsDefined() && n.IsScalar() ? n.as<std::string>() : "";
}

std::vector<std::string> Strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const YAML::Node& n : seq) out.push_back(Str(n));
  return out;
}

// Flattens RBAC rules into "kind/name: group|resource|verb|resourceName" strings.
std::vector<std::string> FlattenRules(const std::vector<YAML::Node>& docs) {
  std::vector<std::string> out;
  for (const char* kind : {"ClusterRole", "Role"}) {
    for (const YAML::Node& role : FindAll(docs, kind)) {
      const std::string who = absl::StrCat(kind, "/", Str(role["metadata"]["name"]));
      for (const YAML::Node& rule : role["rules"]) {
        for (const std::string& url : Strings(rule["nonResourceURLs"])) {
          for (const std::string& v : Strings(rule["verbs"])) {
            out.push_back(absl::StrCat(who, ": nonResource|", url, "|", v));
          }
        }
        std::vector<std::string> names = Strings(rule["resourceNames"]);
        if (names.empty()) names.push_back("*");
        for (const std::string& g : Strings(rule["apiGroups"])) {
          for (const std::string& r : Strings(rule["resources"])) {
            for (const std::string& v : Strings(rule["verbs"])) {
              for (const std::string& n : names) {
                out.push_back(
                    absl::StrCat(who, ": ", g.empty() ? "core" : g, "|", r, "|", v, "|", n));
              }
            }
          }
        }
      }
    }
  }
  return out;
}

class ManifestsTest : public ::testing::TestWithParam<Expectation> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<YAML::Node>> docs = Render(DeployPath(GetParam().dir));
    ASSERT_TRUE(docs.ok()) << docs.status();
    docs_ = *std::move(docs);
    deployment_ = FindOne(docs_, "Deployment", "trimaran-scheduler");
    ASSERT_TRUE(deployment_.IsMap()) << "no Deployment trimaran-scheduler";
    config_map_ = FindOne(docs_, "ConfigMap", "trimaran-scheduler-config");
    ASSERT_TRUE(config_map_.IsMap()) << "no ConfigMap trimaran-scheduler-config";
    config_text_ = Str(config_map_["data"]["config.yaml"]);
    ASSERT_FALSE(config_text_.empty()) << "ConfigMap has no data.config.yaml";
  }

  std::vector<YAML::Node> docs_;
  YAML::Node deployment_;
  YAML::Node config_map_;
  std::string config_text_;
};

TEST_P(ManifestsTest, NamespaceAndImage) {
  const std::vector<YAML::Node> namespaces = FindAll(docs_, "Namespace");
  ASSERT_EQ(namespaces.size(), 1u);
  EXPECT_EQ(Str(namespaces[0]["metadata"]["name"]), kNamespace);
  for (const YAML::Node& doc : docs_) {
    const std::string kind = Str(doc["kind"]);
    if (kind == "Namespace" || kind == "ClusterRole" || kind == "ClusterRoleBinding" ||
        kind == "PriorityClass") {
      continue;  // cluster-scoped
    }
    SCOPED_TRACE(absl::StrCat(kind, "/", Str(doc["metadata"]["name"])));
    EXPECT_EQ(Str(doc["metadata"]["namespace"]), kNamespace);
  }
  for (const YAML::Node& c : deployment_["spec"]["template"]["spec"]["containers"]) {
    SCOPED_TRACE(Str(c["name"]));
    // The tag is the project version: 0.1.0 <-> project(trimaran VERSION 0.1.0).
    EXPECT_EQ(Str(c["image"]), absl::StrCat(kImageName, ":", kProjectVersion));
  }
}

TEST_P(ManifestsTest, DeploymentIsHighlyAvailableAndRestricted) {
  const YAML::Node spec = deployment_["spec"];
  EXPECT_EQ(spec["replicas"].as<int>(0), 2);
  const YAML::Node pod = spec["template"]["spec"];
  EXPECT_EQ(Str(pod["serviceAccountName"]), kServiceAccount);
  const YAML::Node anti = pod["affinity"]["podAntiAffinity"];
  ASSERT_TRUE(anti.IsMap()) << "no pod anti-affinity";
  const YAML::Node term = anti["preferredDuringSchedulingIgnoredDuringExecution"][0];
  EXPECT_EQ(Str(term["podAffinityTerm"]["topologyKey"]), "kubernetes.io/hostname");
  // The anti-affinity selects this Deployment's own pods.
  EXPECT_EQ(
      Str(term["podAffinityTerm"]["labelSelector"]["matchLabels"]["app.kubernetes.io/component"]),
      Str(spec["selector"]["matchLabels"]["app.kubernetes.io/component"]));

  // Its own PriorityClass (shipped), Linux nodes, and a PodDisruptionBudget that keeps
  // one replica through drains.
  EXPECT_EQ(Str(pod["priorityClassName"]), "trimaran-scheduler");
  const YAML::Node priority = FindOne(docs_, "PriorityClass", "trimaran-scheduler");
  ASSERT_TRUE(priority.IsMap()) << "no PriorityClass trimaran-scheduler";
  EXPECT_EQ(priority["value"].as<int64_t>(0), 1000000000);
  EXPECT_EQ(Str(pod["nodeSelector"]["kubernetes.io/os"]), "linux");
  EXPECT_FALSE(Str(pod["nodeSelector"]["kubernetes.io/arch"]).empty());
  const YAML::Node pdb = FindOne(docs_, "PodDisruptionBudget", "trimaran-scheduler");
  ASSERT_TRUE(pdb.IsMap()) << "no PodDisruptionBudget trimaran-scheduler";
  EXPECT_EQ(Str(pdb["apiVersion"]), "policy/v1");
  EXPECT_EQ(pdb["spec"]["maxUnavailable"].as<int>(0), 1);
  // An unready replica never blocks a drain (issue 34, trap 1).
  EXPECT_EQ(Str(pdb["spec"]["unhealthyPodEvictionPolicy"]), "AlwaysAllow");
  EXPECT_EQ(Str(pdb["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"]),
            Str(spec["selector"]["matchLabels"]["app.kubernetes.io/component"]));

  const YAML::Node psc = pod["securityContext"];
  EXPECT_TRUE(psc["runAsNonRoot"].as<bool>(false));
  EXPECT_EQ(psc["runAsUser"].as<int>(0), 65532);
  EXPECT_EQ(Str(psc["seccompProfile"]["type"]), "RuntimeDefault");

  std::set<std::string> empty_dirs;
  for (const YAML::Node& v : pod["volumes"]) {
    if (v["emptyDir"]) empty_dirs.insert(Str(v["name"]));
  }
  const size_t want_containers = GetParam().sidecar ? 2 : 1;
  ASSERT_EQ(pod["containers"].size(), want_containers);
  for (const YAML::Node& c : pod["containers"]) {
    SCOPED_TRACE(Str(c["name"]));
    const YAML::Node sc = c["securityContext"];
    EXPECT_FALSE(sc["allowPrivilegeEscalation"].as<bool>(true));
    EXPECT_TRUE(sc["readOnlyRootFilesystem"].as<bool>(false));
    EXPECT_THAT(Strings(sc["capabilities"]["drop"]), ElementsAre("ALL"));
    EXPECT_FALSE(sc["capabilities"]["add"].IsDefined() && sc["capabilities"]["add"].size() > 0);
    EXPECT_FALSE(Str(c["resources"]["requests"]["cpu"]).empty());
    EXPECT_FALSE(Str(c["resources"]["requests"]["memory"]).empty());
    EXPECT_FALSE(Str(c["resources"]["limits"]["memory"]).empty());
    EXPECT_TRUE(c["livenessProbe"].IsMap());
    EXPECT_TRUE(c["readinessProbe"].IsMap());
    // Writable paths are emptyDirs (the root filesystem is read-only).
    for (const YAML::Node& m : c["volumeMounts"]) {
      if (!m["readOnly"].as<bool>(false)) {
        EXPECT_TRUE(empty_dirs.count(Str(m["name"]))) << Str(m["mountPath"]);
      }
    }
  }
}

TEST_P(ManifestsTest, SchedulerContainer) {
  const YAML::Node c = FindContainer(deployment_, "trimaran-scheduler");
  ASSERT_TRUE(c.IsMap());
  EXPECT_THAT(Strings(c["command"]), ElementsAre("/usr/local/bin/trimaran-scheduler"));
  const std::vector<std::string> args = Strings(c["args"]);
  EXPECT_THAT(args, ::testing::Contains("--config=/etc/trimaran/config.yaml"));
  // --cert-dir points into a mounted emptyDir (the self-signed serving certificate).
  std::string cert_dir;
  for (const std::string& a : args) {
    if (absl::StartsWith(a, "--cert-dir=")) cert_dir = a.substr(11);
  }
  ASSERT_FALSE(cert_dir.empty()) << "no --cert-dir";
  bool mounted = false;
  for (const YAML::Node& m : c["volumeMounts"]) mounted |= Str(m["mountPath"]) == cert_dir;
  EXPECT_TRUE(mounted) << cert_dir << " is not a mount";
  // The config file is the ConfigMap's key.
  bool config_mounted = false;
  for (const YAML::Node& m : c["volumeMounts"]) {
    config_mounted |= Str(m["mountPath"]) == "/etc/trimaran";
  }
  EXPECT_TRUE(config_mounted);

  ASSERT_EQ(c["ports"].size(), GetParam().extender ? 2u : 1u);
  std::map<std::string, int> ports;  // name -> containerPort
  for (const YAML::Node& p : c["ports"]) ports[Str(p["name"])] = p["containerPort"].as<int>(0);
  EXPECT_EQ(ports["https"], 10259);
  if (GetParam().extender) {
    // The protocol on 8888, behind Service trimaran-extender.
    EXPECT_THAT(args, ::testing::Contains("--extender"));
    EXPECT_THAT(args, ::testing::Contains("--extender-port=8888"));
    // Mutual TLS (required by the daemon unless --extender-allow-unauthenticated): the
    // client CA from a mounted Secret, kube-scheduler's name allowed.
    EXPECT_THAT(args, ::testing::Contains(
                          "--extender-client-ca-file=/etc/trimaran/extender-client-ca/ca.crt"));
    EXPECT_THAT(args, ::testing::Contains("--extender-allowed-names=system:kube-scheduler"));
    EXPECT_THAT(args, ::testing::Not(::testing::Contains("--extender-allow-unauthenticated")));
    std::set<std::string> mounts;
    for (const YAML::Node& m : c["volumeMounts"]) mounts.insert(Str(m["mountPath"]));
    EXPECT_TRUE(mounts.count("/etc/trimaran/extender-client-ca"));
    EXPECT_EQ(ports["extender"], 8888);
    const YAML::Node service = FindOne(docs_, "Service", "trimaran-extender");
    ASSERT_TRUE(service.IsMap()) << "no Service trimaran-extender";
    EXPECT_EQ(service["spec"]["ports"][0]["port"].as<int>(0), 8888);
    EXPECT_EQ(Str(service["spec"]["ports"][0]["targetPort"]), "extender");
    for (const auto& kv : service["spec"]["selector"]) {
      EXPECT_EQ(Str(deployment_["spec"]["template"]["metadata"]["labels"][Str(kv.first)]),
                Str(kv.second));
    }
  } else {
    EXPECT_THAT(args, ::testing::Not(::testing::Contains("--extender")));
  }
  // Its own Pod from the downward API: what the LoadMetricsUnavailable/Available Events
  // are about (scheduler/metrics_availability_events.h).
  std::map<std::string, std::string> downward;  // env name -> fieldPath
  for (const YAML::Node& e : c["env"]) {
    downward[Str(e["name"])] = Str(e["valueFrom"]["fieldRef"]["fieldPath"]);
  }
  EXPECT_EQ(downward["POD_NAME"], "metadata.name");
  EXPECT_EQ(downward["POD_NAMESPACE"], "metadata.namespace");
  EXPECT_EQ(downward["POD_UID"], "metadata.uid");
  // Liveness on /healthz, readiness on /readyz: both among the paths served without a
  // token (--authorization-always-allow-paths' default).
  for (const auto& [probe, path] :
       {std::pair<const char*, const char*>{"livenessProbe", "/healthz"},
        {"readinessProbe", "/readyz"}}) {
    SCOPED_TRACE(probe);
    const YAML::Node get = c[probe]["httpGet"];
    EXPECT_EQ(Str(get["scheme"]), "HTTPS");
    EXPECT_EQ(Str(get["path"]), path);
    EXPECT_EQ(Str(get["port"]), "https");
  }
}

TEST_P(ManifestsTest, LoadWatcherSidecarAndService) {
  const Expectation& want = GetParam();
  const YAML::Node c = FindContainer(deployment_, "load-watcher");
  const YAML::Node service = FindOne(docs_, "Service", "trimaran-load-watcher");
  const YAML::Node env_cm = FindOne(docs_, "ConfigMap", "trimaran-load-watcher");
  if (!want.sidecar) {
    EXPECT_FALSE(c.IsDefined() && c.IsMap());
    EXPECT_FALSE(service.IsDefined() && service.IsMap());
    EXPECT_FALSE(env_cm.IsDefined() && env_cm.IsMap());
    return;
  }
  ASSERT_TRUE(c.IsMap());
  ASSERT_TRUE(service.IsMap());
  ASSERT_TRUE(env_cm.IsMap());
  EXPECT_THAT(Strings(c["command"]), ElementsAre("/usr/local/bin/load-watcher"));
  std::map<std::string, int> ports;
  for (const YAML::Node& p : c["ports"]) ports[Str(p["name"])] = p["containerPort"].as<int>(0);
  EXPECT_EQ(ports["watcher-http"], 2020);
  EXPECT_EQ(ports["watcher-grpc"], 2021);
  EXPECT_EQ(Str(c["readinessProbe"]["httpGet"]["path"]), "/readyz");
  // Secured: TLS and a token from mounted Secrets, probes over HTTPS (/healthz and
  // /readyz need no token).
  const std::vector<std::string> args = Strings(c["args"]);
  std::map<std::string, std::string> flags;
  for (const std::string& a : args) {
    const size_t eq = a.find('=');
    if (eq != std::string::npos) flags[a.substr(0, eq)] = a.substr(eq + 1);
  }
  EXPECT_EQ(flags.count("--tls-cert-file") == 1, want.secured_watcher);
  EXPECT_EQ(flags.count("--tls-private-key-file") == 1, want.secured_watcher);
  // The bearer token is on in every shipped watcher (issue 30 point 4), on all
  // interfaces (the Service, Prometheus): load-watcher refuses that without a token.
  EXPECT_EQ(flags.count("--token-file"), 1u);
  EXPECT_EQ(flags["--bind-address"], "0.0.0.0");
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    EXPECT_EQ(Str(c[probe]["httpGet"]["scheme"]) == "HTTPS", want.secured_watcher) << probe;
  }
  std::set<std::string> mounted;
  for (const YAML::Node& m : c["volumeMounts"]) mounted.insert(Str(m["mountPath"]));
  std::vector<std::string> file_flags = {"--token-file"};
  if (want.secured_watcher) {
    file_flags.insert(file_flags.end(), {"--tls-cert-file", "--tls-private-key-file"});
  }
  for (const std::string& flag : file_flags) {
    const std::string dir = flags[flag].substr(0, flags[flag].rfind('/'));
    EXPECT_TRUE(mounted.count(dir)) << flag << " " << dir << " is not a mount";
  }
  EXPECT_EQ(Str(c["livenessProbe"]["httpGet"]["path"]), "/healthz");

  // The provider: from the env ConfigMap, referenced by its generated (hashed) name.
  EXPECT_EQ(Str(c["envFrom"][0]["configMapRef"]["name"]), Str(env_cm["metadata"]["name"]));
  EXPECT_EQ(Str(env_cm["data"]["METRICS_PROVIDER_NAME"]), want.provider);
  EXPECT_FALSE(env_cm["data"]["METRICS_PROVIDER_TOKEN"].IsDefined())
      << "a token never sits in a ConfigMap";
  bool token = false;
  for (const YAML::Node& e : c["env"]) {
    if (Str(e["name"]) != "METRICS_PROVIDER_TOKEN") continue;
    token = true;
    EXPECT_EQ(Str(e["valueFrom"]["secretKeyRef"]["name"]), "trimaran-prometheus");
    EXPECT_EQ(Str(e["valueFrom"]["secretKeyRef"]["key"]), "token");
  }
  EXPECT_EQ(token, want.token_from_secret);
  if (want.provider == "Prometheus") {
    EXPECT_THAT(Str(env_cm["data"]["METRICS_PROVIDER_ADDRESS"]), HasSubstr("://"));
  }

  // The Service selects this Deployment's pods and exposes REST 2020 and gRPC 2021.
  for (const auto& kv : service["spec"]["selector"]) {
    EXPECT_EQ(Str(deployment_["spec"]["template"]["metadata"]["labels"][Str(kv.first)]),
              Str(kv.second));
  }
  std::map<int, std::string> svc_ports;
  for (const YAML::Node& p : service["spec"]["ports"]) {
    svc_ports[p["port"].as<int>(0)] = Str(p["targetPort"]);
  }
  EXPECT_EQ(svc_ports[2020], "watcher-http");
  EXPECT_EQ(svc_ports[2021], "watcher-grpc");
}

TEST_P(ManifestsTest, RbacIsExactlyTheLeastPrivilegeSet) {
  std::vector<std::string> want = {
      "ClusterRole/trimaran-scheduler: core|pods|list|*",
      "ClusterRole/trimaran-scheduler: core|pods|watch|*",
      "ClusterRole/trimaran-scheduler: core|nodes|list|*",
      "ClusterRole/trimaran-scheduler: core|nodes|watch|*",
      "ClusterRole/trimaran-scheduler: core|namespaces|list|*",
      "ClusterRole/trimaran-scheduler: core|namespaces|watch|*",
      "ClusterRole/trimaran-scheduler: core|services|list|*",
      "ClusterRole/trimaran-scheduler: core|services|watch|*",
      "ClusterRole/trimaran-scheduler: core|replicationcontrollers|list|*",
      "ClusterRole/trimaran-scheduler: core|replicationcontrollers|watch|*",
      "ClusterRole/trimaran-scheduler: apps|replicasets|list|*",
      "ClusterRole/trimaran-scheduler: apps|replicasets|watch|*",
      "ClusterRole/trimaran-scheduler: apps|statefulsets|list|*",
      "ClusterRole/trimaran-scheduler: apps|statefulsets|watch|*",
      "ClusterRole/trimaran-scheduler: policy|poddisruptionbudgets|list|*",
      "ClusterRole/trimaran-scheduler: policy|poddisruptionbudgets|watch|*",
      "ClusterRole/trimaran-scheduler: core|pods|delete|*",
      // After a bind error: is the pod bound anyway? (Scheduler::IsBoundInApi)
      "ClusterRole/trimaran-scheduler: core|pods|get|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumes|list|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumes|watch|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumes|patch|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumeclaims|list|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumeclaims|watch|*",
      "ClusterRole/trimaran-scheduler: core|persistentvolumeclaims|patch|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|storageclasses|list|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|storageclasses|watch|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csinodes|list|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csinodes|watch|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csidrivers|list|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csidrivers|watch|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csistoragecapacities|list|*",
      "ClusterRole/trimaran-scheduler: storage.k8s.io|csistoragecapacities|watch|*",
      "ClusterRole/trimaran-scheduler: core|pods/binding|create|*",
      "ClusterRole/trimaran-scheduler: core|pods/status|patch|*",
      "ClusterRole/trimaran-scheduler: events.k8s.io|events|create|*",
      "Role/trimaran-leader-election: coordination.k8s.io|leases|create|*",
      "Role/trimaran-leader-election: coordination.k8s.io|leases|get|trimaran-scheduler",
      "Role/trimaran-leader-election: coordination.k8s.io|leases|update|trimaran-scheduler",
      // For the users of /metrics (bound by the operator to Prometheus, not shipped bound).
      "ClusterRole/trimaran-scheduler-metrics-viewer: nonResource|/metrics|get",
      // For the users of /debug/decisions (trimaranctl explain; bound by the operator).
      "ClusterRole/trimaran-scheduler-decisions-viewer: nonResource|/debug/decisions|get",
  };
  if (GetParam().extender) {
    // Read-only: no evictions, PV/PVC patches, binding, status patches, events or Lease;
    // no GET of a pod either (only the scheduling loop checks a failed bind).
    std::erase_if(want, [](const std::string& rule) {
      return absl::StrContains(rule, "|delete|") || absl::StrContains(rule, "core|pods|get|") ||
             absl::StrContains(rule, "|patch|") || absl::StrContains(rule, "|create|") ||
             absl::StartsWith(rule, "Role/");
    });
  }
  if (GetParam().metrics_server_rbac) {
    want.push_back("ClusterRole/trimaran-metrics-reader: metrics.k8s.io|nodes|list|*");
  }
  if (GetParam().sidecar) {
    // The load watcher's own role (its ServiceAccount): the node list, nothing else.
    want.push_back("ClusterRole/trimaran-load-watcher: core|nodes|list|*");
  }
  EXPECT_THAT(FlattenRules(docs_), UnorderedElementsAreArray(want));
  for (const YAML::Node& role : FindAll(docs_, "Role")) {
    EXPECT_EQ(Str(role["metadata"]["namespace"]), kNamespace);
  }

  // Every role is bound, only to one ServiceAccount (the load watcher's roles to the
  // watcher's when there is a sidecar, everything else to the scheduler's), and every
  // binding names a shipped role, except: the /metrics and /debug/decisions viewer roles
  // (for the operator to bind to Prometheus and to the users of trimaranctl explain) and
  // the built-in system:auth-delegator (TokenReviews and SubjectAccessReviews of the
  // secure port).
  std::set<std::string> roles, bound;
  for (const char* kind : {"ClusterRole", "Role"}) {
    for (const YAML::Node& r : FindAll(docs_, kind)) {
      roles.insert(absl::StrCat(kind, "/", Str(r["metadata"]["name"])));
    }
  }
  for (const char* kind : {"ClusterRoleBinding", "RoleBinding"}) {
    for (const YAML::Node& b : FindAll(docs_, kind)) {
      SCOPED_TRACE(absl::StrCat(kind, "/", Str(b["metadata"]["name"])));
      bound.insert(absl::StrCat(Str(b["roleRef"]["kind"]), "/", Str(b["roleRef"]["name"])));
      ASSERT_EQ(b["subjects"].size(), 1u);
      EXPECT_EQ(Str(b["subjects"][0]["kind"]), "ServiceAccount");
      const std::string role = Str(b["roleRef"]["name"]);
      const bool watcher_role =
          role == "trimaran-load-watcher" || role == "trimaran-metrics-reader";
      EXPECT_EQ(Str(b["subjects"][0]["name"]),
                watcher_role && GetParam().sidecar ? kWatcherServiceAccount : kServiceAccount);
      EXPECT_EQ(Str(b["subjects"][0]["namespace"]), kNamespace);
    }
  }
  roles.erase("ClusterRole/trimaran-scheduler-metrics-viewer");
  roles.erase("ClusterRole/trimaran-scheduler-decisions-viewer");  // for users, not bound
  roles.insert("ClusterRole/system:auth-delegator");
  EXPECT_EQ(roles, bound);
}

// Two identities in one pod: no automatic token mount; the scheduler container mounts
// the pod's projected token, the load-watcher container (only it) its own
// ServiceAccount's token Secret, both at the standard path.
TEST_P(ManifestsTest, EachContainerHasItsOwnServiceAccountToken) {
  const YAML::Node pod = deployment_["spec"]["template"]["spec"];
  EXPECT_EQ(Str(pod["serviceAccountName"]), kServiceAccount);
  EXPECT_FALSE(pod["automountServiceAccountToken"].as<bool>(true));
  std::map<std::string, YAML::Node> volumes;
  for (const YAML::Node& v : pod["volumes"]) volumes[Str(v["name"])] = v;
  auto token_volume = [&](const char* container) -> YAML::Node {
    for (const YAML::Node& m : FindContainer(deployment_, container)["volumeMounts"]) {
      if (Str(m["mountPath"]) == kTokenPath) return volumes[Str(m["name"])];
    }
    return YAML::Node();
  };
  const YAML::Node scheduler = token_volume("trimaran-scheduler");
  ASSERT_TRUE(scheduler.IsMap()) << "the scheduler container mounts no token";
  bool projected_token = false;
  for (const YAML::Node& src : scheduler["projected"]["sources"]) {
    projected_token |= src["serviceAccountToken"].IsDefined() && src["serviceAccountToken"].IsMap();
  }
  EXPECT_TRUE(projected_token);
  const YAML::Node secret = FindOne(docs_, "Secret", "trimaran-load-watcher-token");
  const YAML::Node sa = FindOne(docs_, "ServiceAccount", kWatcherServiceAccount);
  if (!GetParam().sidecar) {
    EXPECT_FALSE(secret.IsDefined() && secret.IsMap());
    EXPECT_FALSE(sa.IsDefined() && sa.IsMap());
    EXPECT_FALSE(volumes.count("load-watcher-token"));
    return;
  }
  ASSERT_TRUE(sa.IsMap());
  ASSERT_TRUE(secret.IsMap());
  EXPECT_EQ(Str(secret["type"]), "kubernetes.io/service-account-token");
  EXPECT_EQ(Str(secret["metadata"]["annotations"]["kubernetes.io/service-account.name"]),
            kWatcherServiceAccount);
  const YAML::Node watcher = token_volume("load-watcher");
  ASSERT_TRUE(watcher.IsMap()) << "the load-watcher container mounts no token";
  EXPECT_EQ(Str(watcher["secret"]["secretName"]), "trimaran-load-watcher-token");
}

// The watcher's ports admit the Trimaran pods, dashboards and Prometheus only; the
// scheduler's secure port stays open (it authenticates every request itself).
TEST_P(ManifestsTest, NetworkPolicyAdmitsSchedulerDashboardAndPrometheus) {
  const YAML::Node np = FindOne(docs_, "NetworkPolicy", "trimaran-load-watcher");
  ASSERT_TRUE(np.IsMap());
  for (const auto& kv : np["spec"]["podSelector"]["matchLabels"]) {
    EXPECT_EQ(Str(deployment_["spec"]["template"]["metadata"]["labels"][Str(kv.first)]),
              Str(kv.second));
  }
  std::set<int> open_ports;
  std::set<std::string> watcher_peers;
  bool extender_rule = false;
  for (const YAML::Node& rule : np["spec"]["ingress"]) {
    std::set<int> ports;
    for (const YAML::Node& p : rule["ports"]) ports.insert(p["port"].as<int>(0));
    if (!rule["from"].IsDefined()) {
      open_ports.insert(ports.begin(), ports.end());
      continue;
    }
    if (ports == (std::set<int>{8888})) {
      // The extender's port (overlays/extender): kube-scheduler runs with host networking,
      // so only an ipBlock can name it; the extender authenticates every client by its
      // certificate itself.
      ASSERT_TRUE(GetParam().extender);
      for (const YAML::Node& peer : rule["from"]) {
        EXPECT_TRUE(peer["ipBlock"]["cidr"].IsDefined()) << YAML::Dump(peer);
      }
      extender_rule = true;
      continue;
    }
    EXPECT_EQ(ports, (std::set<int>{2020, 2021}));
    for (const YAML::Node& peer : rule["from"]) {
      // Never a pod label alone, nor any namespace: a label is anyone's to set.
      ASSERT_TRUE(peer["namespaceSelector"].IsMap()) << YAML::Dump(peer);
      ASSERT_TRUE(peer["podSelector"].IsMap()) << YAML::Dump(peer);
      const std::string ns =
          Str(peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]);
      EXPECT_FALSE(ns.empty()) << YAML::Dump(peer);
      EXPECT_EQ(peer["namespaceSelector"].size(), 1u) << "matchLabels only";
      EXPECT_EQ(peer["namespaceSelector"]["matchLabels"].size(), 1u);
      for (const auto& kv : peer["podSelector"]["matchLabels"]) {
        watcher_peers.insert(absl::StrCat(ns, "/", Str(kv.first), "=", Str(kv.second)));
      }
    }
  }
  EXPECT_EQ(open_ports, (std::set<int>{10259}));
  EXPECT_EQ(extender_rule, GetParam().extender);
  EXPECT_THAT(watcher_peers,
              ::testing::IsSupersetOf({"trimaran/app.kubernetes.io/component=dashboard",
                                       "monitoring/app.kubernetes.io/name=prometheus",
                                       "trimaran/app.kubernetes.io/component=scheduler"}));
}

TEST_P(ManifestsTest, SchedulerConfigDecodesAndMatchesTheDeployment) {
  const Expectation& want = GetParam();
  absl::StatusOr<sched::config::SchedulerConfig> cfg =
      sched::config::ParseConfig(config_text_, "config.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  EXPECT_EQ(cfg->api_version, sched::config::ApiVersion::kV1);
  // The extender never elects (every replica answers kube-scheduler).
  EXPECT_EQ(cfg->leader_election.leader_elect, !want.extender);
  if (!want.extender) {
    EXPECT_EQ(cfg->leader_election.resource_namespace, kNamespace);
    // The Role grants get/update on exactly this name.
    EXPECT_EQ(cfg->leader_election.resource_name, kLeaseName);
  }
  ASSERT_EQ(cfg->profiles.size(), 1u);
  EXPECT_EQ(cfg->profiles[0].scheduler_name, "trimaran");

  // The args as written (the plugins decode them).
  const YAML::Node doc = YAML::Load(config_text_);
  YAML::Node fit, tlp;
  for (const YAML::Node& pc : doc["profiles"][0]["pluginConfig"]) {
    if (Str(pc["name"]) == "NodeResourcesFit") fit.reset(pc["args"]);
    if (Str(pc["name"]) == "TargetLoadPacking") tlp.reset(pc["args"]);
  }
  if (want.extender) {
    // Live load only: kube-scheduler's own plugins score allocation.
    const YAML::Node score = doc["profiles"][0]["plugins"]["score"];
    EXPECT_EQ(Str(score["disabled"][0]["name"]), "*");
    ASSERT_EQ(score["enabled"].size(), 1u);
    EXPECT_EQ(Str(score["enabled"][0]["name"]), "TargetLoadPacking");
  } else {
    ASSERT_TRUE(fit.IsMap());
    EXPECT_EQ(Str(fit["scoringStrategy"]["type"]), "MostAllocated");
  }
  EXPECT_EQ(tlp.IsMap(), want.target_load_packing);
  if (want.target_load_packing) {
    EXPECT_EQ(Str(tlp["watcherAddress"]), want.watcher_address);
    EXPECT_EQ(Str(tlp["metricProvider"]["type"]), want.metric_provider);
    EXPECT_EQ(!Str(tlp["watcherCAFile"]).empty(), want.secured_watcher);
    // The sidecar requires its token: every remote watcher is read with one.
    EXPECT_EQ(!Str(tlp["watcherTokenFile"]).empty(), !want.watcher_address.empty());
    if (!want.watcher_address.empty()) {
      // The scheduler container mounts the directories of the files it reads.
      std::set<std::string> mounted;
      for (const YAML::Node& m : FindContainer(deployment_, "trimaran-scheduler")["volumeMounts"]) {
        mounted.insert(Str(m["mountPath"]));
      }
      std::vector<std::string> fields = {"watcherTokenFile"};
      if (want.secured_watcher) fields.push_back("watcherCAFile");
      for (const std::string& field : fields) {
        const std::string file = Str(tlp[field]);
        EXPECT_TRUE(mounted.count(file.substr(0, file.rfind('/')))) << field << " " << file;
      }
    }
    const int target = tlp["targetUtilization"].as<int>(0);
    EXPECT_GE(target, 1);
    EXPECT_LE(target, 100);
  } else {
    // Without TLP the profile needs nothing beyond the builtin plugins.
    TRIMARAN_EXPECT_OK(sched::config::Validate(*cfg, sched::plugins::InTreeRegistry()));
  }
}

// The daemon itself accepts the embedded configuration (with every plugin it names
// registered) and prints the effective configuration.
TEST_P(ManifestsTest, SchedulerAcceptsTheEmbeddedConfig) {
#ifndef TRIMARAN_SCHEDULER_BIN
  GTEST_SKIP() << "trimaran-scheduler is not built in this tree";
#else
  ASSERT_TRUE(std::filesystem::exists(TRIMARAN_SCHEDULER_BIN))
      << TRIMARAN_SCHEDULER_BIN
      << " is not built (cmake --build <dir> --target trimaran_scheduler)";
  absl::StatusOr<std::string> dir = MakeTempDir("trimaran-deploy-config");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string path = *dir + "/config.yaml";
  TRIMARAN_ASSERT_OK(WriteFile(path, config_text_));
  const std::string out_path = *dir + "/effective.yaml";
  absl::StatusOr<RunResult> r = RunCommand(
      {TRIMARAN_SCHEDULER_BIN, "--config", path, "--write-config-to", out_path}, absl::Seconds(30));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0) << r->output;
  absl::StatusOr<RunResult> cat = RunCommand({"cat", out_path});
  ASSERT_TRUE(cat.ok()) << cat.status();
  EXPECT_THAT(cat->output, HasSubstr("schedulerName: trimaran"));
  if (GetParam().target_load_packing) {
    EXPECT_THAT(cat->output, HasSubstr("TargetLoadPacking"));
  }
  std::remove(path.c_str());
  std::remove(out_path.c_str());
  std::remove(dir->c_str());
#endif
}

INSTANTIATE_TEST_SUITE_P(Deploy, ManifestsTest, ::testing::ValuesIn(Expectations()),
                         [](const ::testing::TestParamInfo<Expectation>& param_info) {
                           std::string name = param_info.param.dir;
                           if (absl::StartsWith(name, "overlays/")) name = name.substr(9);
                           for (char& ch : name) {
                             if (ch == '-' || ch == '/') ch = '_';
                           }
                           return name;
                         });

// Every directory under deploy/overlays/ is tested here and by the e2e dry run.
// deploy/install.yaml is exactly tools/render-install.sh's output for the current base.
TEST(DeployTest, InstallYamlIsTheRenderedBase) {
  absl::StatusOr<RunResult> render =
      RunCommand({"kubectl", "kustomize", DeployPath("base")}, absl::Seconds(60));
  ASSERT_TRUE(render.ok()) << render.status();
  ASSERT_EQ(render->exit_code, 0) << render->output;
  std::ifstream in(DeployPath("install.yaml"));
  std::stringstream committed;
  committed << in.rdbuf();
  const std::string want = absl::StrCat(
      "# Generated by tools/render-install.sh from deploy/base (kubectl kustomize); do not "
      "edit.\n",
      render->output);
  EXPECT_TRUE(committed.str() == want)
      << "deploy/install.yaml is stale: run tools/render-install.sh";
}

// components/arm64: the pod selects the architecture tools/build-image.sh built for, and
// nothing else of the Deployment changes.
TEST(DeployTest, Arm64ComponentSelectsArm64NodesOnly) {
  absl::StatusOr<std::vector<YAML::Node>> base = Render(DeployPath("base"));
  ASSERT_TRUE(base.ok()) << base.status();
  absl::StatusOr<std::vector<YAML::Node>> arm = RenderWithComponent("base", "components/arm64");
  ASSERT_TRUE(arm.ok()) << arm.status();
  YAML::Node want = YAML::Clone(FindOne(*base, "Deployment", "trimaran-scheduler"));
  YAML::Node got = FindOne(*arm, "Deployment", "trimaran-scheduler");
  ASSERT_TRUE(want && got);
  EXPECT_EQ(Str(want["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"]), "amd64");
  EXPECT_EQ(Str(got["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"]), "arm64");
  EXPECT_EQ(Str(got["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/os"]), "linux");
  want["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"] = "arm64";
  EXPECT_EQ(ToYamlStream({want}), ToYamlStream({got}));
}

// Every overlay (and the base) with every optional component a user adds to it
// (issue 34, trap 2: components/monitoring once duplicated a ClusterRoleBinding of the
// base). Each combination renders, holds no object twice, keeps every object of the
// overlay alone and adds the component's.
TEST(DeployTest, EveryOverlayComposesWithEveryOptionalComponent) {
  const auto key = [](const YAML::Node& doc) {
    std::string api = Str(doc["apiVersion"]);
    api = api.substr(0, api.find('/') == std::string::npos ? 0 : api.find('/'));
    // A generated ConfigMap's name ends in the hash of its content, which a component
    // that changes the content (coscheduling's profile) changes.
    std::string name = Str(doc["metadata"]["name"]);
    const size_t dash = name.rfind('-');
    if (Str(doc["kind"]) == "ConfigMap" && dash != std::string::npos && name.size() - dash == 11) {
      name.resize(dash);
    }
    return absl::StrCat(api, "/", Str(doc["kind"]), "/", Str(doc["metadata"]["namespace"]), "/",
                        name);
  };
  for (const char* overlay :
       {"base", "overlays/prometheus", "overlays/metrics-server", "overlays/single-container",
        "overlays/request-only", "overlays/extender", "overlays/secure-load-watcher"}) {
    absl::StatusOr<std::vector<YAML::Node>> alone = Render(DeployPath(overlay));
    ASSERT_TRUE(alone.ok()) << overlay << ": " << alone.status();
    std::set<std::string> alone_keys;
    for (const YAML::Node& doc : *alone) alone_keys.insert(key(doc));
    for (const char* component : {"components/monitoring", "components/coscheduling",
                                  "components/load-watcher-dashboard", "components/arm64"}) {
      SCOPED_TRACE(absl::StrCat(overlay, " + ", component));
      absl::StatusOr<std::vector<YAML::Node>> both = RenderWithComponent(overlay, component);
      ASSERT_TRUE(both.ok()) << both.status();
      std::set<std::string> keys;
      for (const YAML::Node& doc : *both) {
        EXPECT_TRUE(keys.insert(key(doc)).second) << "twice: " << key(doc);
      }
      for (const std::string& k : alone_keys) EXPECT_TRUE(keys.contains(k)) << "lost: " << k;
      EXPECT_GE(keys.size(), alone_keys.size());
    }
  }
}

TEST(DeployTest, EveryOverlayIsTested) {
  std::vector<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(DeployPath("overlays"))) {
    if (entry.is_directory()) on_disk.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(on_disk, UnorderedElementsAreArray(Overlays()));
  std::vector<std::string> dirs;
  for (const Expectation& e : Expectations()) dirs.push_back(e.dir);
  for (const std::string& o : Overlays()) {
    EXPECT_THAT(dirs, ::testing::Contains(absl::StrCat("overlays/", o)));
  }
}

}  // namespace
}  // namespace trimaran::deploy_testing
