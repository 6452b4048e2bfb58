// InterPodAffinity and PodTopologySpread end to end, against the reference: the real
// trimaran-scheduler and the real kube-scheduler 1.37 run side by side on one real
// etcd + kube-apiserver 1.37 (127.0.0.1), see the same nodes (64 CPU, 256Gi, Ready,
// untainted, labelled kubernetes.io/hostname=<name>, topology.kubernetes.io/zone and
// e2e.trimaran.io/set, the node set of one or more scenarios), and each places the pods
// that carry its schedulerName. Node sets, which a scenario's pods select by nodeSelector
// (so that nodes joining or filling up in one scenario change no other's):
//   base    node-0..9: zone-a 4 nodes, zone-b and zone-c 3 (scenarios 3 and 4);
//   anti    anti-0..11, one more joining in scenario 1 (zones round-robin);
//   spread  spread-0..9: zone-a 2 nodes, zone-b 3, zone-c 5 (uneven on purpose).
// Nodes outside a pod's nodeSelector are counted in its PodScheduled=False message under
// the NodeAffinity reason, "node(s) didn't match Pod's node affinity/selector", by both
// (the unschedulable pods' whole messages are compared: the same text from both). Every scenario
// creates the same pods for both, in one namespace per scheduler (affinity terms and spread
// constraints count their own namespace only), checks trimaran's outcome against the property,
// compares it with kube-scheduler's, and runs a checker of the required constraints over the final
// state (no bound pod violates its nodeSelector, required anti-affinity, affinity or DoNotSchedule
// spread).
//
//   1. RequiredAntiAffinity: 13 replicas (app=x) with required anti-affinity to app=x on
//      the hostname over the 12 anti nodes: 12 bound, one per node; the 13th pending with
//      PodScheduled=False and "0/N nodes are available: ... 12 node(s) didn't match pod
//      anti-affinity rules", word for word as kube-scheduler says it. Then a
//      13th anti node joins (Ready, untainted, labelled like the others) and each scheduler's
//      pending replica is bound to it promptly (both schedulers' replicas fit there: the terms
//      count their own namespace only). Which replica is left pending is up to each scheduler's
//      queue order.
//   2. ZoneSpread: 30 pods, maxSkew 1 on the zone, DoNotSchedule, over the spread nodes'
//      uneven zones (2, 3 and 5 nodes): 10/10/10 per zone.
//   3. DriverAffinity (Spark-like): a driver, then 6 executors with required pod affinity
//      to it on the zone: every executor in the driver's zone; an executor whose driver
//      does not exist stays pending with "didn't match pod affinity rules".
//   4. PreferredAntiAffinityOutweighsPacking: a trimaran profile with NodeResourcesFit
//      MostAllocated ("trimaran-most") against kube-scheduler's default and
//      NodeResourcesMostAllocated profiles. Pods of 4 CPU / 16Gi (6.25 % of a node): 6
//      pods without affinity pack on one node, the same for both schedulers (the control:
//      the packing pull is real), then 6 pods with preferred anti-affinity (weight 100) on
//      the hostname land on 6 distinct nodes, one of them the packed node (the packing
//      still decides where no anti-affinity applies yet). One scheduler at a time, the
//      reference first, so that neither takes the room the other's pods would use.
//   5. ReleasedByDeletion (queueing): a guard pod bound to anti-0 with required
//      anti-affinity to app=web on the hostname, and a web pod pinned to anti-0: the web
//      pod stays pending ("didn't satisfy existing pods anti-affinity rules"); once the
//      guard is deleted it is bound within kReleaseTimeout, far sooner than the periodic
//      flush (pods leave the unschedulable pool on their own only after 5 minutes), so
//      the deletion event itself moved it. Trimaran's InterPodAffinity QueueingHint
//      queues this deletion (kubernetes#134393 reports upstream's hint skipping it); both
//      schedulers' web pods must be bound within kReleaseTimeout, and kube-scheduler 1.37's
//      is (each one's delay is printed).
//
//   6. SchedulingGatesHoldUntilTheLastGateIsRemoved (1.30+ field, served by this
//      apiserver): a pod with two scheduling gates is never attempted by either
//      scheduler (no scheduler event, no nodeName, each one's
//      scheduler_pending_pods{queue="gated"} counts it); removing one gate changes
//      nothing; removing the last one binds it within kReleaseTimeout, by both.
//   7. MinDomains: minDomains 4 over 3 zones: one pod per zone, the rest pending with the
//      same message from both.
//   8. NodeAffinityPolicy: Honor spreads over the zones the pods may use; Ignore also
//      counts the zone they cannot use, so each usable zone takes one pod.
//   9. MatchLabelKeys (PodTopologySpread): each revision spreads on its own.
//  10. The affinity terms' matchLabelKeys, mismatchLabelKeys and namespaceSelector.
//  11. NodeTaintsPolicy (a cluster of its own, ConstraintsTaintsE2ETest: a tainted node in
//      the shared one would change every other scenario's message): zone-c's only node
//      has a taint the pods do not tolerate. Ignore (the default) still counts zone-c,
//      which stays empty, so each other zone takes one pod; Honor leaves it out and all
//      four pods bind 2/2.
//
// Profiles: trimaran's default profile ("trimaran") is v1's, with InterPodAffinity and
// PodTopologySpread at weight 2; kube-scheduler 1.37 runs config v1 with the same
// default weights. One control plane and both schedulers serve the whole
// binary (SetUpTestSuite; ctest runs each test in a process of its own, so there each
// scenario gets its own). Scenarios are independent of their order: each one's pods
// select its node set, messages count every node present, and pods other than scenario
// 4's request 100m / 128Mi, which moves no resource score by more than a point.
// Where trimaran's placement differs from kube-scheduler's within the constraints (which
// replica stays pending, which node of a zone a spread pod lands on), the test logs it
// rather than fails: among nodes of equal score both schedulers pick at random
// (selectHost's reservoir sampling upstream), and the two do not score every node the
// same to the point (tie-breaking among equal scores is random in both), so only the properties the
// constraints force are compared. Synchronization is by polling the apiserver (Eventually) until
// every pod of a namespace is decided: bound, or PodScheduled=False.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/affinity.h"
#include "kube/api/label_selector.h"
#include "kube/api/pod.h"
#include "kube/api/topology_spread_constraint.h"
#include "kube/rest_client.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/proc_metrics.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakeLabelSelector;
using kube::testing::MakePod;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr const char* kZones[] = {"zone-a", "zone-b", "zone-c"};
// Node sets (a label every node carries; every scenario's pods select theirs).
constexpr char kSetLabel[] = "e2e.trimaran.io/set";
constexpr char kBaseSet[] = "base";      // node-0..9, zones 4/3/3
constexpr char kAntiSet[] = "anti";      // anti-0..11 (+ anti-12 in scenario 1)
constexpr char kSpreadSet[] = "spread";  // spread-0..9, zones 2/3/5
constexpr int kBaseNodes = 10;
constexpr int kAntiNodes = 12;
constexpr int kSpreadZoneSizes[] = {2, 3, 5};  // per kZones entry
// The NodeAffinity reason for nodes outside the pod's nodeSelector (both schedulers).
constexpr char kSelectorReason[] = "node(s) didn't match Pod's node affinity/selector";
constexpr absl::Duration kNewNodeTimeout = absl::Seconds(30);
constexpr absl::Duration kDecideTimeout = absl::Seconds(60);
constexpr absl::Duration kReleaseTimeout = absl::Seconds(15);

// Profiles (schedulerName).
constexpr char kTrimaran[] = "trimaran";           // trimaran's default profile
constexpr char kTrimaranMost[] = "trimaran-most";  // + NodeResourcesFit MostAllocated
constexpr char kKube[] = "kube";                   // kube-scheduler 1.37's default profile
constexpr char kKubeMost[] = "kube-most";          // + NodeResourcesMostAllocated

// The second profile of trimaran's configuration (SchedulerConfigYaml's extra_profile).
constexpr char kTrimaranMostProfile[] = R"(  - schedulerName: trimaran-most
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)";

// kube-scheduler's profiles: its default one and the EKS guide's MostAllocated one.
std::string KubeProfilesYaml() {
  return absl::StrCat("  - schedulerName: kube\n  - schedulerName: kube-most\n",
                      MostAllocatedPluginConfigYaml());
}

// ---- The checker of required constraints over a final state (independent of the
// scheduler's own matching code). ----

using NodeLabels = std::map<std::string, kube::StringMap>;  // node name -> labels

// metav1.LabelSelector semantics: a missing selector matches nothing, an empty one
// everything; matchLabels and matchExpressions are ANDed.
bool SelectorMatches(const std::optional<kube::LabelSelector>& selector,
                     const kube::StringMap& labels) {
  if (!selector.has_value()) return false;
  for (const auto& [key, value] : selector->match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const kube::LabelSelectorRequirement& r : selector->match_expressions) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case kube::LabelSelectorOperator::kIn:
        if (!in) return false;
        break;
      case kube::LabelSelectorOperator::kNotIn:
        if (in) return false;
        break;
      case kube::LabelSelectorOperator::kExists:
        if (!has) return false;
        break;
      case kube::LabelSelectorOperator::kDoesNotExist:
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// Whether `other` is in the namespaces of `owner`'s term: the term's list, else the
// owner's namespace (no term of these scenarios has a namespaceSelector).
bool InTermNamespaces(const kube::PodAffinityTerm& term, const kube::Pod& owner,
                      const kube::Pod& other) {
  if (term.namespaces.empty()) {
    return other.metadata.namespace_name == owner.metadata.namespace_name;
  }
  return std::find(term.namespaces.begin(), term.namespaces.end(), other.metadata.namespace_name) !=
         term.namespaces.end();
}

// Whether a node's labels carry every label of the pod's nodeSelector.
bool MatchesNodeSelector(const kube::Pod& pod, const kube::StringMap& node_labels) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    const auto it = node_labels.find(key);
    if (it == node_labels.end() || it->second != value) return false;
  }
  return true;
}

// The value of label `key` on the node `pod` is bound to; nullopt when absent.
std::optional<std::string> DomainOf(const NodeLabels& nodes, const kube::Pod& pod,
                                    const std::string& key) {
  const auto node = nodes.find(pod.spec.node_name);
  if (node == nodes.end()) return std::nullopt;
  const auto it = node->second.find(key);
  if (it == node->second.end()) return std::nullopt;
  return it->second;
}

// One line per violated required constraint among the bound `pods`, "" lines never:
//   required anti-affinity  no other bound pod of the term's namespaces matching the term
//                           shares the pod's domain;
//   required affinity       some bound pod matching the term is in the pod's domain (the
//                           pod itself counts only if it matches its own term: the first
//                           pod of a group);
//   nodeSelector            the pod's node carries every label of its nodeSelector;
//   DoNotSchedule spread    over the domains of every node carrying the key and matching
//                           the pod's nodeSelector (nodeAffinityPolicy Honor, the default),
//                           the matching bound pods of the namespace on those nodes
//                           differ by at most maxSkew.
std::vector<std::string> RequiredConstraintViolations(const std::vector<kube::Pod>& pods,
                                                      const NodeLabels& nodes) {
  std::set<std::string> out;
  std::vector<const kube::Pod*> bound;
  for (const kube::Pod& p : pods) {
    if (!p.spec.node_name.empty()) bound.push_back(&p);
  }
  for (const kube::Pod* p : bound) {
    const std::string who =
        absl::StrCat(p->metadata.namespace_name, "/", p->metadata.name, " on ", p->spec.node_name);
    if (!nodes.contains(p->spec.node_name)) {
      out.insert(absl::StrCat(who, ": unknown node"));
      continue;
    }
    if (!MatchesNodeSelector(*p, nodes.at(p->spec.node_name))) {
      out.insert(absl::StrCat(who, ": node does not match the pod's nodeSelector"));
    }
    const std::optional<kube::Affinity>& affinity = p->spec.affinity;
    if (affinity.has_value() && affinity->pod_anti_affinity.has_value()) {
      for (const kube::PodAffinityTerm& term : affinity->pod_anti_affinity->required) {
        const std::optional<std::string> mine = DomainOf(nodes, *p, term.topology_key);
        if (!mine.has_value()) continue;  // a node without the key never violates
        for (const kube::Pod* q : bound) {
          if (q == p || !InTermNamespaces(term, *p, *q) ||
              !SelectorMatches(term.label_selector, q->metadata.labels)) {
            continue;
          }
          if (DomainOf(nodes, *q, term.topology_key) == mine) {
            out.insert(absl::StrCat(who, ": required anti-affinity broken, ", term.topology_key,
                                    "=", *mine, " shared with ", q->metadata.name));
          }
        }
      }
    }
    if (affinity.has_value() && affinity->pod_affinity.has_value()) {
      for (const kube::PodAffinityTerm& term : affinity->pod_affinity->required) {
        const std::optional<std::string> mine = DomainOf(nodes, *p, term.topology_key);
        if (!mine.has_value()) {
          out.insert(
              absl::StrCat(who, ": required affinity on a node without ", term.topology_key));
          continue;
        }
        bool found = false;
        for (const kube::Pod* q : bound) {
          if (InTermNamespaces(term, *p, *q) &&
              SelectorMatches(term.label_selector, q->metadata.labels) &&
              DomainOf(nodes, *q, term.topology_key) == mine) {
            found = true;
            break;
          }
        }
        if (!found) {
          out.insert(absl::StrCat(who, ": required affinity broken, no matching pod in ",
                                  term.topology_key, "=", *mine));
        }
      }
    }
    for (const kube::TopologySpreadConstraint& c : p->spec.topology_spread_constraints) {
      if (c.when_unsatisfiable != kube::UnsatisfiableConstraintAction::kDoNotSchedule) continue;
      std::map<std::string, int> count;  // every domain, 0 included
      for (const auto& [name, labels] : nodes) {
        const auto it = labels.find(c.topology_key);
        if (it != labels.end() && MatchesNodeSelector(*p, labels)) count[it->second] += 0;
      }
      for (const kube::Pod* q : bound) {
        if (q->metadata.namespace_name != p->metadata.namespace_name ||
            !SelectorMatches(c.label_selector, q->metadata.labels) ||
            !nodes.contains(q->spec.node_name) ||
            !MatchesNodeSelector(*p, nodes.at(q->spec.node_name))) {
          continue;
        }
        const std::optional<std::string> d = DomainOf(nodes, *q, c.topology_key);
        if (d.has_value()) ++count[*d];
      }
      if (count.empty()) continue;
      int lo = count.begin()->second, hi = lo;
      for (const auto& [domain, n] : count) {
        lo = std::min(lo, n);
        hi = std::max(hi, n);
      }
      if (hi - lo > c.max_skew) {
        std::vector<std::string> parts;
        for (const auto& [domain, n] : count) parts.push_back(absl::StrCat(domain, "=", n));
        out.insert(absl::StrCat(p->metadata.namespace_name, ": spread on ", c.topology_key,
                                " skew ", hi - lo, " > maxSkew ", c.max_skew, " (",
                                absl::StrJoin(parts, " "), ")"));
      }
    }
  }
  return {out.begin(), out.end()};
}

// The checker must be able to fail: a hand-made state breaking each kind of constraint.
TEST(RequiredConstraintCheckerTest, FlagsEachKindOfViolation) {
  const NodeLabels nodes = {
      {"n1", {{kHostname, "n1"}, {kZone, "z1"}}},
      {"n2", {{kHostname, "n2"}, {kZone, "z1"}}},
      {"n3", {{kHostname, "n3"}, {kZone, "z2"}}},
  };
  const kube::LabelSelector app_x = MakeLabelSelector().Label("app", "x").Obj();
  auto anti = [&](const std::string& name, const std::string& node) {
    return MakePod()
        .Name(name)
        .Namespace("ns")
        .Label("app", "x")
        .PodAntiAffinity(kHostname, app_x)
        .NodeName(node)
        .Obj();
  };
  // Anti-affinity: two app=x on n1 breaks it; on n1 and n2 it holds.
  EXPECT_THAT(RequiredConstraintViolations({anti("a", "n1"), anti("b", "n2")}, nodes), IsEmpty());
  EXPECT_THAT(RequiredConstraintViolations({anti("a", "n1"), anti("b", "n1")}, nodes),
              ::testing::SizeIs(2));
  // Another namespace does not count.
  kube::Pod other_ns = anti("c", "n1");
  other_ns.metadata.namespace_name = "other";
  EXPECT_THAT(RequiredConstraintViolations({anti("a", "n1"), other_ns}, nodes), IsEmpty());

  // Affinity: an executor in z2 while the driver is in z1.
  const kube::Pod driver =
      MakePod().Name("driver").Namespace("ns").Label("role", "driver").NodeName("n1").Obj();
  auto executor = [&](const std::string& node) {
    return MakePod()
        .Name("exec")
        .Namespace("ns")
        .Label("role", "executor")
        .PodAffinity(kZone, MakeLabelSelector().Label("role", "driver").Obj())
        .NodeName(node)
        .Obj();
  };
  EXPECT_THAT(RequiredConstraintViolations({driver, executor("n2")}, nodes), IsEmpty());
  EXPECT_THAT(RequiredConstraintViolations({driver, executor("n3")}, nodes), ::testing::SizeIs(1));

  // Spread: z1 = 2, z2 = 0 with maxSkew 1 breaks it; z1 = 1, z2 = 1 holds.
  auto spread = [&](const std::string& name, const std::string& node) {
    return MakePod()
        .Name(name)
        .Namespace("ns")
        .Label("app", "s")
        .SpreadConstraint(1, kZone, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                          MakeLabelSelector().Label("app", "s").Obj())
        .NodeName(node)
        .Obj();
  };
  EXPECT_THAT(RequiredConstraintViolations({spread("s1", "n1"), spread("s2", "n3")}, nodes),
              IsEmpty());
  EXPECT_THAT(RequiredConstraintViolations({spread("s1", "n1"), spread("s2", "n2")}, nodes),
              ::testing::ElementsAre(HasSubstr("skew 2 > maxSkew 1")));
  // Only the domains of nodes matching the nodeSelector count: z1 = 2 and no z2.
  kube::Pod z1_a = spread("s1", "n1"), z1_b = spread("s2", "n2");
  z1_a.spec.node_selector = z1_b.spec.node_selector = {{kZone, "z1"}};
  EXPECT_THAT(RequiredConstraintViolations({z1_a, z1_b}, nodes), IsEmpty());
  // A pod on a node outside its nodeSelector.
  kube::Pod outside = spread("s3", "n3");
  outside.spec.node_selector = {{kZone, "z1"}};
  EXPECT_THAT(RequiredConstraintViolations({outside}, nodes),
              ::testing::ElementsAre(HasSubstr("does not match the pod's nodeSelector")));
}

// ---- The shared environment. ----

// A namespace's pods as decided by a scheduler.
struct Outcome {
  std::vector<kube::Pod> pods;
  std::map<std::string, std::string> node_of;        // bound pod -> node
  std::map<std::string, std::string> unschedulable;  // unbound pod -> PodScheduled=False message

  size_t Decided() const { return node_of.size() + unschedulable.size(); }
  std::set<std::string> Nodes() const {
    std::set<std::string> out;
    for (const auto& [pod, node] : node_of) out.insert(node);
    return out;
  }
  std::string Describe() const {
    std::vector<std::string> parts;
    for (const auto& [pod, node] : node_of) parts.push_back(absl::StrCat(pod, "=", node));
    for (const auto& [pod, message] : unschedulable) {
      parts.push_back(absl::StrCat(pod, " pending: ", message));
    }
    return absl::StrCat(pods.size(), " pods: ", absl::StrJoin(parts, "; "));
  }
};

struct Env {
  std::unique_ptr<Cluster> cluster;
  NodeLabels nodes;
  std::unique_ptr<Subprocess> trimaran;
  int trimaran_port = 0;  // its secure port (/metrics open: kAdminOpenPathsFlag)
  std::unique_ptr<KubeScheduler> kube;
};

class ConstraintsE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const absl::Time start = absl::Now();
    env_ = new Env;
    const absl::Status s = StartEnv(*env_);
    if (!s.ok()) setup_error_ = new std::string(s.ToString());
    std::printf("environment up in %s\n", absl::FormatDuration(absl::Now() - start).c_str());
  }

  static void TearDownTestSuite() {
    if (env_ != nullptr) {
      // trimaran-scheduler takes a few seconds to close its informers after SIGTERM:
      // room for a clean exit rather than the SIGKILL after Stop's default 5 s.
      if (env_->trimaran) env_->trimaran->Stop(absl::Seconds(20));
      if (env_->kube) env_->kube->process().Stop();
    }
    delete env_;
    env_ = nullptr;
    delete setup_error_;
    setup_error_ = nullptr;
  }

  void SetUp() override { ASSERT_EQ(setup_error_, nullptr) << *setup_error_ << "\n" << Logs(); }

  void TearDown() override {
    if (HasFailure()) std::fprintf(stderr, "%s\n", Logs().c_str());
  }

  static std::string Logs() {
    std::string out;
    if (env_ != nullptr && env_->trimaran) {
      absl::StrAppend(&out, "--- trimaran-scheduler ---\n", env_->trimaran->LogTail(8000), "\n");
    }
    if (env_ != nullptr && env_->kube) {
      absl::StrAppend(&out, "--- kube-scheduler ---\n", env_->kube->process().LogTail(8000), "\n");
    }
    return out;
  }

  // Control plane, nodes, both schedulers; then one probe pod per profile, bound, shows
  // that each profile places pods with the nodes in its cache.
  static absl::Status StartEnv(Env& env) {
    TRIMARAN_ASSIGN_OR_RETURN(env.cluster, Cluster::Start());
    Cluster& cluster = *env.cluster;
    ControlPlane& cp = cluster.control_plane();
    for (int i = 0; i < kBaseNodes; ++i) {
      TRIMARAN_RETURN_IF_ERROR(
          AddReadyNode(env, absl::StrCat("node-", i), kBaseSet, kZones[i % std::size(kZones)]));
    }
    for (int i = 0; i < kAntiNodes; ++i) {
      TRIMARAN_RETURN_IF_ERROR(
          AddReadyNode(env, absl::StrCat("anti-", i), kAntiSet, kZones[i % std::size(kZones)]));
    }
    for (int z = 0, i = 0; z < static_cast<int>(std::size(kZones)); ++z) {
      for (int k = 0; k < kSpreadZoneSizes[z]; ++k, ++i) {
        TRIMARAN_RETURN_IF_ERROR(
            AddReadyNode(env, absl::StrCat("spread-", i), kSpreadSet, kZones[z]));
      }
    }

    TRIMARAN_ASSIGN_OR_RETURN(
        SchedulerProcess trimaran,
        StartSchedulerProcess({.binary = kSchedulerBin,
                               .dir = cp.dir(),
                               .tag = "constraints",
                               .config_yaml = SchedulerConfigYaml(kTrimaran, /*leader_elect=*/false,
                                                                  kTrimaranMostProfile),
                               .kubeconfig = cluster.kubeconfig()}));
    env.trimaran = std::move(trimaran.process);
    env.trimaran_port = trimaran.secure_port;

    TRIMARAN_ASSIGN_OR_RETURN(env.kube,
                              KubeScheduler::Start(cp, {.kubeconfig = cluster.kubeconfig(),
                                                        .profiles_yaml = KubeProfilesYaml(),
                                                        .tag = "kube-scheduler"}));

    TRIMARAN_RETURN_IF_ERROR(CreateNamespace(cluster, "probe"));
    const std::vector<std::string> profiles = {kTrimaran, kTrimaranMost, kKube, kKubeMost};
    for (const std::string& profile : profiles) {
      TRIMARAN_RETURN_IF_ERROR(
          cluster.client()
              .CreatePod(SmallPod(absl::StrCat("probe-", profile), "probe", profile).Obj())
              .status());
    }
    std::string last;
    const bool bound = Eventually(
        [&] {
          absl::StatusOr<kube::PodList> list = cluster.client().ListPods("probe", {});
          if (!list.ok()) return false;
          std::vector<std::string> unbound;
          for (const kube::Pod& p : list->items) {
            if (p.spec.node_name.empty()) unbound.push_back(p.metadata.name);
          }
          last = absl::StrJoin(unbound, ", ");
          return list->items.size() == profiles.size() && unbound.empty();
        },
        kDecideTimeout);
    if (!bound) return absl::DeadlineExceededError(absl::StrCat("probe pods not bound: ", last));
    return absl::OkStatus();
  }

  // Node `name` of set `set` in `zone` (64 CPU, 256Gi, untainted, Ready), recorded in
  // env.nodes for the checker.
  static absl::Status AddReadyNode(Env& env, const std::string& name, const std::string& set,
                                   const std::string& zone) {
    const kube::StringMap labels = {{kHostname, name}, {kZone, zone}, {kSetLabel, set}};
    TRIMARAN_RETURN_IF_ERROR(
        env.cluster->AddNode(name, {.cpu = "64", .memory = "256Gi", .labels = labels}));
    // Ready, as a kubelet would report it (neither scheduler reads it today).
    TRIMARAN_ASSIGN_OR_RETURN(
        http::HttpResponse r,
        env.cluster->control_plane().Request(
            "PATCH", absl::StrCat("/api/v1/nodes/", name, "/status"),
            R"({"status":{"conditions":[{"type":"Ready","status":"True",)"
            R"("reason":"KubeletReady","message":"kubelet is posting ready status"}]}})",
            "application/merge-patch+json"));
    if (r.status_code != 200) {
      return absl::InternalError(
          absl::StrCat("node ", name, " status: HTTP ", r.status_code, ": ", r.body));
    }
    env.nodes[name] = labels;
    return absl::OkStatus();
  }

  static kube::StringMap InSet(const std::string& set) { return {{kSetLabel, set}}; }

  // The NodeAffinity reason in `sched`'s PodScheduled=False messages.
  static std::string SelectorReason(const std::string& sched) {
    (void)sched;
    return kSelectorReason;
  }

  // "0/<every node> nodes are available: " and, for the nodes outside `set`,
  // "<n> node(s) <selector reason>": what a message of a pod selecting `set` contains.
  static void ExpectSetMessage(const std::string& message, const std::string& sched,
                               const std::string& set) {
    int outside = 0;
    for (const auto& [name, labels] : nodes()) outside += labels.at(kSetLabel) != set;
    EXPECT_THAT(message, StartsWith(absl::StrCat("0/", nodes().size(), " nodes are available: ")));
    EXPECT_THAT(message, HasSubstr(absl::StrCat(outside, " ", SelectorReason(sched))));
  }

  static absl::Status CreateNamespace(Cluster& cluster, const std::string& name) {
    return cluster.client()
        .Raw("POST", "/api/v1/namespaces",
             absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")", name,
                          R"("}})"),
             "application/json")
        .status();
  }

  // A pod requesting 100m / 128Mi.
  static kube::testing::PodWrapper SmallPod(const std::string& name, const std::string& ns,
                                            const std::string& scheduler) {
    return MakePod().Name(name).Namespace(ns).SchedulerName(scheduler).Req(
        {{"cpu", "100m"}, {"memory", "128Mi"}});
  }

  static kube::RestClient& client() { return env_->cluster->client(); }
  static const NodeLabels& nodes() { return env_->nodes; }

  void NewNamespace(const std::string& name) {
    TRIMARAN_ASSERT_OK(CreateNamespace(*env_->cluster, name));
  }

  void Create(const kube::Pod& pod) { TRIMARAN_ASSERT_OK(client().CreatePod(pod).status()); }

  static Outcome Observe(const std::string& ns) {
    Outcome out;
    absl::StatusOr<kube::PodList> list = client().ListPods(ns, {});
    if (!list.ok()) return out;
    out.pods = std::move(list->items);
    for (const kube::Pod& p : out.pods) {
      if (!p.spec.node_name.empty()) {
        out.node_of[p.metadata.name] = p.spec.node_name;
        continue;
      }
      for (const kube::PodCondition& c : p.status.conditions) {
        if (c.type == "PodScheduled" && c.status == kube::ConditionStatus::kFalse &&
            c.reason == "Unschedulable") {
          out.unschedulable[p.metadata.name] = c.message;
        }
      }
    }
    return out;
  }

  // Waits until the `n` pods of `ns` are all decided (bound, or PodScheduled=False);
  // *out gets the last observation either way.
  static bool WaitDecided(const std::string& ns, size_t n, Outcome* out) {
    return Eventually(
        [&] {
          *out = Observe(ns);
          return out->pods.size() == n && out->Decided() == n;
        },
        kDecideTimeout);
  }

  // Bound pods per zone, every zone present (0 included).
  static std::map<std::string, int> ZoneCounts(const Outcome& o) {
    std::map<std::string, int> count;
    for (const char* z : kZones) count[z] = 0;
    for (const auto& [pod, node] : o.node_of) ++count[nodes().at(node).at(kZone)];
    return count;
  }

  static std::string ZoneOf(const std::string& node) { return nodes().at(node).at(kZone); }

  static Env* env_;
  static std::string* setup_error_;
};

Env* ConstraintsE2ETest::env_ = nullptr;
std::string* ConstraintsE2ETest::setup_error_ = nullptr;

std::string Counts(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [k, n] : counts) parts.push_back(absl::StrCat(k, "=", n));
  return absl::StrJoin(parts, " ");
}

// 1. Required anti-affinity on the hostname, 13 replicas on the 12 anti nodes; then a
// 13th anti node joins.
TEST_F(ConstraintsE2ETest, RequiredAntiAffinityOnePerNodeThenNewNode) {
  constexpr int kReplicas = kAntiNodes + 1;
  const kube::LabelSelector app_x = MakeLabelSelector().Label("app", "x").Obj();
  std::map<std::string, Outcome> outcome;
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("anti-", sched);
    NewNamespace(ns);
    for (int i = 0; i < kReplicas; ++i) {
      Create(SmallPod(absl::StrCat("web-", i), ns, sched)
                 .Label("app", "x")
                 .NodeSelector(InSet(kAntiSet))
                 .PodAntiAffinity(kHostname, app_x)
                 .Obj());
    }
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome& o = outcome[sched];
    ASSERT_TRUE(WaitDecided(absl::StrCat("anti-", sched), kReplicas, &o)) << o.Describe();
    std::printf("[anti-affinity] %s: %zu bound on %zu nodes, %zu pending (%s), e.g. \"%s\"\n",
                sched.c_str(), o.node_of.size(), o.Nodes().size(), o.unschedulable.size(),
                o.unschedulable.empty() ? "" : o.unschedulable.begin()->first.c_str(),
                o.unschedulable.empty() ? "" : o.unschedulable.begin()->second.c_str());
    EXPECT_EQ(o.node_of.size(), static_cast<size_t>(kAntiNodes)) << o.Describe();
    EXPECT_EQ(o.Nodes().size(), static_cast<size_t>(kAntiNodes))
        << "two replicas share a node: " << o.Describe();
    for (const std::string& node : o.Nodes()) {
      EXPECT_EQ(nodes().at(node).at(kSetLabel), kAntiSet) << node;
    }
    EXPECT_EQ(o.unschedulable.size(), 1u) << o.Describe();
    for (const auto& [pod, message] : o.unschedulable) {
      SCOPED_TRACE(pod);
      ExpectSetMessage(message, sched, kAntiSet);
      EXPECT_THAT(message, HasSubstr(absl::StrCat(
                               kAntiNodes, " node(s) didn't match pod anti-affinity rules")));
    }
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
  }
  // The same outcome as kube-scheduler 1.37 (which replica is left pending is the
  // queue's order, logged where it differs), with the same message word for word.
  EXPECT_EQ(outcome[kTrimaran].node_of.size(), outcome[kKube].node_of.size());
  EXPECT_EQ(outcome[kTrimaran].Nodes(), outcome[kKube].Nodes());
  EXPECT_EQ(outcome[kTrimaran].unschedulable.size(), outcome[kKube].unschedulable.size());
  if (!outcome[kTrimaran].unschedulable.empty() && !outcome[kKube].unschedulable.empty()) {
    EXPECT_EQ(outcome[kTrimaran].unschedulable.begin()->second,
              outcome[kKube].unschedulable.begin()->second)
        << "the PodScheduled=False message, word for word";
  }
  if (!outcome[kTrimaran].unschedulable.empty() && !outcome[kKube].unschedulable.empty() &&
      outcome[kTrimaran].unschedulable.begin()->first !=
          outcome[kKube].unschedulable.begin()->first) {
    std::printf("[anti-affinity] differs (allowed): pending replica %s (trimaran) vs %s (kube)\n",
                outcome[kTrimaran].unschedulable.begin()->first.c_str(),
                outcome[kKube].unschedulable.begin()->first.c_str());
  }
  ASSERT_FALSE(HasFailure());

  // A 13th anti node joins: each scheduler's pending replica goes there (the terms
  // count their own namespace only, so both replicas fit on it).
  const std::string joined = absl::StrCat("anti-", kAntiNodes);
  const absl::Time join = absl::Now();
  TRIMARAN_ASSERT_OK(AddReadyNode(*env_, joined, kAntiSet, kZones[kAntiNodes % std::size(kZones)]));
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    const std::string pending = outcome[sched].unschedulable.begin()->first;
    Outcome o;
    const bool bound = Eventually(
        [&] {
          o = Observe(absl::StrCat("anti-", sched));
          return o.node_of.size() == static_cast<size_t>(kReplicas);
        },
        kNewNodeTimeout);
    std::printf("[anti-affinity] %s: %s on %s %s after %s joined\n", sched.c_str(), pending.c_str(),
                o.node_of.contains(pending) ? o.node_of[pending].c_str() : "-",
                absl::FormatDuration(absl::Now() - join).c_str(), joined.c_str());
    ASSERT_TRUE(bound) << o.Describe();
    EXPECT_EQ(o.node_of[pending], joined) << o.Describe();
    EXPECT_EQ(o.Nodes().size(), static_cast<size_t>(kReplicas)) << o.Describe();
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
  }
}

// 2. Zone spread, maxSkew 1, DoNotSchedule: 30 pods over zones of 2, 3 and 5 nodes.
TEST_F(ConstraintsE2ETest, ZoneSpreadThirtyPodsOverUnevenZones) {
  constexpr int kPods = 30;
  auto spread_pod = [](const std::string& name, const std::string& ns, const std::string& sched) {
    return SmallPod(name, ns, sched)
        .Label("app", "spread")
        .NodeSelector(InSet(kSpreadSet))
        .SpreadConstraint(1, kZone, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                          MakeLabelSelector().Label("app", "spread").Obj())
        .Obj();
  };
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("spread-", sched);
    NewNamespace(ns);
    for (int i = 0; i < kPods; ++i) Create(spread_pod(absl::StrCat("spread-", i), ns, sched));
  }
  std::map<std::string, std::map<std::string, int>> per_zone, per_node;
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("spread-", sched), kPods, &o)) << o.Describe();
    per_zone[sched] = ZoneCounts(o);
    for (const auto& [pod, node] : o.node_of) ++per_node[sched][node];
    std::printf("[spread] %s, %d pods: %s; per node %s\n", sched.c_str(), kPods,
                Counts(per_zone[sched]).c_str(), Counts(per_node[sched]).c_str());
    EXPECT_EQ(o.node_of.size(), static_cast<size_t>(kPods)) << o.Describe();
    for (const auto& [node, n] : per_node[sched]) {
      EXPECT_EQ(nodes().at(node).at(kSetLabel), kSpreadSet) << node;
    }
    EXPECT_EQ(per_zone[sched],
              (std::map<std::string, int>{{"zone-a", 10}, {"zone-b", 10}, {"zone-c", 10}}))
        << o.Describe();
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
  }
  EXPECT_EQ(per_zone[kTrimaran], per_zone[kKube]);
  if (per_node[kTrimaran] != per_node[kKube]) {
    // Allowed: within a zone the spread constraint says nothing about the nodes.
    std::printf("[spread] differs (allowed) per node: trimaran %s; kube %s\n",
                Counts(per_node[kTrimaran]).c_str(), Counts(per_node[kKube]).c_str());
  }
}

// 3. Spark-like: executors with required pod affinity to their driver's zone.
TEST_F(ConstraintsE2ETest, ExecutorsFollowTheirDriverZone) {
  constexpr int kExecutors = 6;
  auto executor = [](const std::string& name, const std::string& ns, const std::string& sched,
                     const std::string& app) {
    return SmallPod(name, ns, sched)
        .Label("spark-role", "executor")
        .Label("app-id", app)
        .NodeSelector(InSet(kBaseSet))
        .PodAffinity(kZone,
                     MakeLabelSelector().Label("spark-role", "driver").Label("app-id", app).Obj())
        .Obj();
  };
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("spark-", sched);
    NewNamespace(ns);
    Create(SmallPod("driver", ns, sched)
               .Label("spark-role", "driver")
               .Label("app-id", "a1")
               .NodeSelector(InSet(kBaseSet))
               .Obj());
  }
  std::map<std::string, std::string> driver_zone;
  for (const std::string sched : {kTrimaran, kKube}) {
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("spark-", sched), 1, &o)) << sched << ": " << o.Describe();
    ASSERT_TRUE(o.node_of.contains("driver")) << sched << ": " << o.Describe();
    driver_zone[sched] = ZoneOf(o.node_of["driver"]);
  }
  // The executors of a1, and one of a2 whose driver does not exist (a1's driver has the
  // role label but not the app-id).
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("spark-", sched);
    for (int i = 0; i < kExecutors; ++i) {
      Create(executor(absl::StrCat("exec-", i), ns, sched, "a1"));
    }
    Create(executor("orphan-exec", ns, sched, "a2"));
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("spark-", sched), kExecutors + 2, &o)) << o.Describe();
    std::map<std::string, int> zones = ZoneCounts(o);
    std::printf("[driver affinity] %s: driver in %s, pods per zone %s, orphan: \"%s\"\n",
                sched.c_str(), driver_zone[sched].c_str(), Counts(zones).c_str(),
                o.unschedulable.contains("orphan-exec") ? o.unschedulable["orphan-exec"].c_str()
                                                        : "(not pending)");
    EXPECT_EQ(o.node_of.size(), static_cast<size_t>(kExecutors + 1)) << o.Describe();
    for (int i = 0; i < kExecutors; ++i) {
      const std::string pod = absl::StrCat("exec-", i);
      ASSERT_TRUE(o.node_of.contains(pod)) << pod << ": " << o.Describe();
      EXPECT_EQ(ZoneOf(o.node_of[pod]), driver_zone[sched]) << pod << " on " << o.node_of[pod];
    }
    EXPECT_EQ(zones[driver_zone[sched]], kExecutors + 1);
    ASSERT_TRUE(o.unschedulable.contains("orphan-exec")) << o.Describe();
    ExpectSetMessage(o.unschedulable["orphan-exec"], sched, kBaseSet);
    EXPECT_THAT(o.unschedulable["orphan-exec"],
                HasSubstr(absl::StrCat(kBaseNodes, " node(s) didn't match pod affinity rules")));
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    EXPECT_FALSE(Observe(absl::StrCat("spark-", sched)).node_of.contains("orphan-exec")) << sched;
  }
}

// 4. Preferred anti-affinity (weight 100) on the hostname under a packing profile.
TEST_F(ConstraintsE2ETest, PreferredAntiAffinityOutweighsPacking) {
  constexpr int kPods = 6;
  // 4 CPU / 16Gi: 6.25 % of a node per pod, so MostAllocated pulls towards the fullest.
  auto big_pod = [](const std::string& name, const std::string& ns, const std::string& sched) {
    return MakePod()
        .Name(name)
        .Namespace(ns)
        .SchedulerName(sched)
        .NodeSelector(InSet(kBaseSet))
        .Req({{"cpu", "4"}, {"memory", "16Gi"}});
  };
  // Control: without anti-affinity each packing profile puts all 6 on one node. One
  // scheduler at a time (the reference first), so that neither one's placements can
  // take the room the other one's would use.
  std::string packed;
  for (const std::string sched : {kKubeMost, kTrimaranMost}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("pack-control-", sched);
    NewNamespace(ns);
    for (int i = 0; i < kPods; ++i) {
      Create(big_pod(absl::StrCat("packed-", i), ns, sched).Label("app", "packed").Obj());
    }
    Outcome o;
    ASSERT_TRUE(WaitDecided(ns, kPods, &o)) << o.Describe();
    ASSERT_EQ(o.node_of.size(), static_cast<size_t>(kPods)) << o.Describe();
    std::printf("[packing control] %s: %d pods on %s\n", sched.c_str(), kPods,
                absl::StrJoin(o.Nodes(), ",").c_str());
    ASSERT_EQ(o.Nodes().size(), 1u) << "the packing profile did not pack: " << o.Describe();
    if (packed.empty()) packed = *o.Nodes().begin();
    EXPECT_EQ(*o.Nodes().begin(), packed) << "packed elsewhere than kube-scheduler";
  }

  // With preferred anti-affinity weight 100 on the hostname; again one scheduler at a
  // time, the reference first.
  std::map<std::string, Outcome> outcome;
  for (const std::string sched : {kKube, kKubeMost, kTrimaranMost}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("pack-anti-", sched);
    NewNamespace(ns);
    for (int i = 0; i < kPods; ++i) {
      Create(big_pod(absl::StrCat("pref-", i), ns, sched)
                 .Label("app", "pref")
                 .PreferredPodAntiAffinity(100, kHostname,
                                           MakeLabelSelector().Label("app", "pref").Obj())
                 .Obj());
    }
    Outcome& o = outcome[sched];
    ASSERT_TRUE(WaitDecided(ns, kPods, &o)) << o.Describe();
    std::printf("[preferred anti-affinity] %s: %zu pods on %zu nodes (%s)\n", sched.c_str(),
                o.node_of.size(), o.Nodes().size(), absl::StrJoin(o.Nodes(), ",").c_str());
    EXPECT_EQ(o.node_of.size(), static_cast<size_t>(kPods)) << o.Describe();
    EXPECT_EQ(o.Nodes().size(), static_cast<size_t>(kPods)) << o.Describe();
  }
  // Where no anti-affinity applies yet (the first pod), the packing profiles still pack.
  EXPECT_TRUE(outcome[kTrimaranMost].Nodes().contains(packed)) << outcome[kTrimaranMost].Describe();
  EXPECT_TRUE(outcome[kKubeMost].Nodes().contains(packed)) << outcome[kKubeMost].Describe();
  // The same spreading as kube-scheduler 1.37, default and MostAllocated profiles.
  EXPECT_EQ(outcome[kTrimaranMost].Nodes().size(), outcome[kKube].Nodes().size());
  EXPECT_EQ(outcome[kTrimaranMost].Nodes().size(), outcome[kKubeMost].Nodes().size());
}

// 5. A pod kept off its node by an existing pod's anti-affinity is scheduled as soon as
// that pod is deleted.
TEST_F(ConstraintsE2ETest, ReleasedByDeletion) {
  const std::string node = "anti-0";
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("release-", sched);
    NewNamespace(ns);
    Create(SmallPod("guard", ns, sched)
               .NodeName(node)
               .PodAntiAffinity(kHostname, MakeLabelSelector().Label("app", "web").Obj())
               .Obj());
    Create(SmallPod("web", ns, sched)
               .Label("app", "web")
               .NodeSelector({{kSetLabel, kAntiSet}, {kHostname, node}})
               .Obj());
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("release-", sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(ns, 2, &o)) << o.Describe();
    ASSERT_TRUE(o.unschedulable.contains("web")) << o.Describe();
    EXPECT_THAT(o.unschedulable["web"],
                HasSubstr("1 node(s) didn't satisfy existing pods anti-affinity rules"));
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("release-", sched);
    const absl::Time deleted = absl::Now();
    // Grace period 0: no kubelet runs here to confirm a graceful deletion.
    TRIMARAN_ASSERT_OK(client()
                           .Raw("DELETE", absl::StrCat("/api/v1/namespaces/", ns, "/pods/guard"),
                                R"({"gracePeriodSeconds":0})", "application/json")
                           .status());
    Outcome o;
    const bool bound = Eventually(
        [&] {
          o = Observe(ns);
          return o.node_of.contains("web");
        },
        kReleaseTimeout);
    std::printf("[released] %s: web on %s %s after the guard's deletion\n", sched.c_str(),
                o.node_of.contains("web") ? o.node_of["web"].c_str() : "-",
                absl::FormatDuration(absl::Now() - deleted).c_str());
    ASSERT_TRUE(bound) << o.Describe();
    EXPECT_EQ(o.node_of["web"], node);
  }
}

TEST_F(ConstraintsE2ETest, SchedulingGatesHoldUntilTheLastGateIsRemoved) {
  const auto gated_metric = [](const std::string& sched) {
    const std::string url =
        sched == kTrimaran ? absl::StrCat("https://127.0.0.1:", env_->trimaran_port, "/metrics")
                           : env_->kube->url() + "/metrics";
    const std::string header =
        absl::StrCat("Authorization: Bearer ", env_->cluster->control_plane().token());
    return SumSamples(Curl(url, nullptr, header), "scheduler_pending_pods", {R"(queue="gated")"});
  };
  const auto patch_gates = [](const std::string& ns, const std::string& gates) {
    return client()
        .Raw("PATCH", absl::StrCat("/api/v1/namespaces/", ns, "/pods/gated"),
             absl::StrCat(R"({"spec":{"schedulingGates":)", gates, "}}"),
             "application/merge-patch+json")
        .status();
  };
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("gates-", sched);
    NewNamespace(ns);
    kube::Pod pod = SmallPod("gated", ns, sched).NodeSelector(InSet(kBaseSet)).Obj();
    pod.spec.scheduling_gates = {{.name = "example.com/quota"}, {.name = "example.com/image"}};
    Create(pod);
  }
  // Long enough for both to have attempted it many times were it not gated.
  absl::SleepFor(absl::Seconds(3));
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("gates-", sched);
    Outcome o = Observe(ns);
    EXPECT_TRUE(o.node_of.empty()) << o.Describe();
    EXPECT_TRUE(o.unschedulable.empty()) << "attempted: " << o.Describe();
    absl::StatusOr<http::HttpResponse> events = env_->cluster->control_plane().Request(
        "GET", absl::StrCat("/apis/events.k8s.io/v1/namespaces/", ns, "/events"));
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_THAT(events->body, Not(HasSubstr("\"reportingController\""))) << events->body;
    EXPECT_EQ(gated_metric(sched), 1) << "scheduler_pending_pods{queue=\"gated\"}";
    TRIMARAN_ASSERT_OK(patch_gates(ns, R"([{"name":"example.com/image"}])"));
  }
  absl::SleepFor(absl::Seconds(2));
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    EXPECT_TRUE(Observe(absl::StrCat("gates-", sched)).node_of.empty()) << "one gate is left";
    EXPECT_EQ(gated_metric(sched), 1);
    TRIMARAN_ASSERT_OK(patch_gates(absl::StrCat("gates-", sched), "null"));
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    const std::string ns = absl::StrCat("gates-", sched);
    Outcome o;
    EXPECT_TRUE(Eventually(
        [&] {
          o = Observe(ns);
          return o.node_of.contains("gated");
        },
        kReleaseTimeout))
        << o.Describe();
    EXPECT_EQ(nodes().at(o.node_of["gated"]).at(kSetLabel), kBaseSet);
    EXPECT_TRUE(Eventually([&] { return gated_metric(sched) == 0; }, absl::Seconds(10)));
  }
}

// The PodScheduled=False messages of a namespace's pending pods, as a sorted list.
std::vector<std::string> PendingMessages(const Outcome& o) {
  std::vector<std::string> out;
  for (const auto& [pod, message] : o.unschedulable) out.push_back(message);
  std::sort(out.begin(), out.end());
  return out;
}

// 7. minDomains above the number of zones: the global minimum counts as 0, so each of
// the 3 zones takes one pod (maxSkew 1) and the rest stay pending.
TEST_F(ConstraintsE2ETest, MinDomainsAboveTheZoneCountCapsEveryZoneAtMaxSkew) {
  constexpr int kPods = 5;
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("mindomains-", sched);
    NewNamespace(ns);
    for (int i = 0; i < kPods; ++i) {
      kube::Pod pod =
          SmallPod(absl::StrCat("md-", i), ns, sched)
              .Label("app", "md")
              .NodeSelector(InSet(kSpreadSet))
              .SpreadConstraint(1, kZone, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                                MakeLabelSelector().Label("app", "md").Obj())
              .Obj();
      pod.spec.topology_spread_constraints.back().min_domains = 4;
      Create(pod);
    }
  }
  std::map<std::string, std::vector<std::string>> messages;
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("mindomains-", sched), kPods, &o)) << o.Describe();
    EXPECT_EQ(ZoneCounts(o),
              (std::map<std::string, int>{{"zone-a", 1}, {"zone-b", 1}, {"zone-c", 1}}))
        << o.Describe();
    messages[sched] = PendingMessages(o);
    ASSERT_EQ(messages[sched].size(), 2u) << o.Describe();
    ExpectSetMessage(messages[sched][0], sched, kSpreadSet);
    EXPECT_THAT(messages[sched][0], HasSubstr("didn't match pod topology spread constraints"));
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
    std::printf("[mindomains] %s: %s; pending: %s\n", sched.c_str(), Counts(ZoneCounts(o)).c_str(),
                messages[sched][0].c_str());
  }
  EXPECT_EQ(messages[kTrimaran], messages[kKube]);
}

// 8. nodeAffinityPolicy: pods that may use zone-a and zone-b only. Honor (the default)
// spreads them over those two zones; Ignore also counts zone-c, which they cannot use and
// which stays empty, so each usable zone takes one pod (maxSkew 1) and the rest wait.
TEST_F(ConstraintsE2ETest, NodeAffinityPolicyIgnoreCountsZonesThePodCannotUse) {
  constexpr int kPods = 4;
  for (const std::string sched : {kTrimaran, kKube}) {
    for (const std::string policy : {"honor", "ignore"}) {
      const std::string ns = absl::StrCat(policy, "-", sched);
      NewNamespace(ns);
      for (int i = 0; i < kPods; ++i) {
        kube::Pod pod =
            SmallPod(absl::StrCat("nap-", i), ns, sched)
                .Label("app", "nap")
                .NodeSelector(InSet(kSpreadSet))
                .NodeAffinityIn(kZone, {"zone-a", "zone-b"})
                .SpreadConstraint(1, kZone, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                                  MakeLabelSelector().Label("app", "nap").Obj())
                .Obj();
        if (policy == "ignore") {
          pod.spec.topology_spread_constraints.back().node_affinity_policy =
              kube::NodeInclusionPolicy::kIgnore;
        }
        Create(pod);
      }
    }
  }
  std::map<std::string, std::vector<std::string>> messages;
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome honor, ignore;
    ASSERT_TRUE(WaitDecided(absl::StrCat("honor-", sched), kPods, &honor)) << honor.Describe();
    ASSERT_TRUE(WaitDecided(absl::StrCat("ignore-", sched), kPods, &ignore)) << ignore.Describe();
    EXPECT_EQ(ZoneCounts(honor),
              (std::map<std::string, int>{{"zone-a", 2}, {"zone-b", 2}, {"zone-c", 0}}))
        << honor.Describe();
    EXPECT_EQ(ZoneCounts(ignore),
              (std::map<std::string, int>{{"zone-a", 1}, {"zone-b", 1}, {"zone-c", 0}}))
        << ignore.Describe();
    messages[sched] = PendingMessages(ignore);
    ASSERT_EQ(messages[sched].size(), 2u) << ignore.Describe();
    EXPECT_THAT(messages[sched][0], HasSubstr("didn't match pod topology spread constraints"));
    std::printf("[nodeAffinityPolicy] %s: Honor %s; Ignore %s, pending: %s\n", sched.c_str(),
                Counts(ZoneCounts(honor)).c_str(), Counts(ZoneCounts(ignore)).c_str(),
                messages[sched][0].c_str());
  }
  EXPECT_EQ(messages[kTrimaran], messages[kKube]);
}

// 9. matchLabelKeys (merged into the selector by the 1.34+ apiserver; counted once):
// revision a has 3 pods on each of node-1 and node-2; the 2 pods of revision b, spread on
// the hostname over node-0..2, spread among themselves only, so they land on 2 distinct
// nodes. Counted with revision a, both would have to go to node-0.
TEST_F(ConstraintsE2ETest, MatchLabelKeysSpreadsEachRevisionOnItsOwn) {
  const std::vector<std::string> hosts = {"node-0", "node-1", "node-2"};
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("mlk-", sched);
    NewNamespace(ns);
    for (int i = 0; i < 6; ++i) {
      Create(SmallPod(absl::StrCat("rev-a-", i), ns, sched)
                 .Labels({{"app", "mlk"}, {"pod-template-hash", "a"}})
                 .NodeName(i < 3 ? "node-1" : "node-2")
                 .Obj());
    }
    for (int i = 0; i < 2; ++i) {
      kube::Pod pod =
          SmallPod(absl::StrCat("rev-b-", i), ns, sched)
              .Labels({{"app", "mlk"}, {"pod-template-hash", "b"}})
              .NodeAffinityIn(kHostname, hosts)
              .SpreadConstraint(1, kHostname, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                                MakeLabelSelector().Label("app", "mlk").Obj())
              .Obj();
      pod.spec.topology_spread_constraints.back().match_label_keys = {"pod-template-hash"};
      Create(pod);
    }
  }
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("mlk-", sched), 8, &o)) << o.Describe();
    ASSERT_TRUE(o.node_of.contains("rev-b-0") && o.node_of.contains("rev-b-1")) << o.Describe();
    EXPECT_NE(o.node_of["rev-b-0"], o.node_of["rev-b-1"]) << o.Describe();
    EXPECT_THAT(RequiredConstraintViolations(o.pods, nodes()), IsEmpty());
    std::printf("[matchLabelKeys] %s: revision b on %s and %s\n", sched.c_str(),
                o.node_of["rev-b-0"].c_str(), o.node_of["rev-b-1"].c_str());
  }
}

// 10. InterPodAffinity's newer term fields:
//   - matchLabelKeys: revision a has one pod on each of node-3..5; the 3 pods of revision
//     b, with required anti-affinity to app=ipa on the hostname keyed on the revision,
//     avoid each other only: one per node. Without the key none would fit.
//   - mismatchLabelKeys: node-7 has a pod of tenant x, node-8 one of tenant y; a tenant-y
//     pod with required anti-affinity to app=mt keyed by mismatch on the tenant avoids
//     other tenants only: it lands on node-8. Without the key it would fit nowhere.
//   - namespaceSelector: a db pod on node-6 in a namespace labelled team=db-<scheduler>;
//     a pod of another namespace with required affinity to app=db in the namespaces of
//     that label lands on node-6.
TEST_F(ConstraintsE2ETest, AffinityTermsHonourMatchLabelKeysMismatchLabelKeysAndNamespaceSelector) {
  for (const std::string sched : {kTrimaran, kKube}) {
    const std::string ns = absl::StrCat("ipa-", sched);
    const std::string db_ns = absl::StrCat("ipa-db-", sched);
    NewNamespace(ns);
    TRIMARAN_ASSERT_OK(client()
                           .Raw("POST", "/api/v1/namespaces",
                                absl::StrCat(R"({"metadata":{"name":")", db_ns,
                                             R"(","labels":{"team":"db-)", sched, R"("}}})"),
                                "application/json")
                           .status());
    for (int i = 0; i < 3; ++i) {
      Create(SmallPod(absl::StrCat("rev-a-", i), ns, sched)
                 .Labels({{"app", "ipa"}, {"rev", "a"}})
                 .NodeName(absl::StrCat("node-", 3 + i))
                 .Obj());
      kube::Pod b = SmallPod(absl::StrCat("rev-b-", i), ns, sched)
                        .Labels({{"app", "ipa"}, {"rev", "b"}})
                        .NodeAffinityIn(kHostname, {"node-3", "node-4", "node-5"})
                        .PodAntiAffinity(kHostname, MakeLabelSelector().Label("app", "ipa").Obj())
                        .Obj();
      b.spec.affinity->pod_anti_affinity->required.back().match_label_keys = {"rev"};
      Create(b);
    }
    Create(SmallPod("tenant-x", ns, sched)
               .Labels({{"app", "mt"}, {"tenant", "x"}})
               .NodeName("node-7")
               .Obj());
    Create(SmallPod("tenant-y", ns, sched)
               .Labels({{"app", "mt"}, {"tenant", "y"}})
               .NodeName("node-8")
               .Obj());
    kube::Pod y = SmallPod("tenant-y-new", ns, sched)
                      .Labels({{"app", "mt"}, {"tenant", "y"}})
                      .NodeAffinityIn(kHostname, {"node-7", "node-8"})
                      .PodAntiAffinity(kHostname, MakeLabelSelector().Label("app", "mt").Obj())
                      .Obj();
    y.spec.affinity->pod_anti_affinity->required.back().mismatch_label_keys = {"tenant"};
    Create(y);
    Create(SmallPod("db", db_ns, sched).Label("app", "db").NodeName("node-6").Obj());
    kube::Pod client_pod = SmallPod("db-client", ns, sched)
                               .NodeSelector(InSet(kBaseSet))
                               .PodAffinity(kHostname, MakeLabelSelector().Label("app", "db").Obj())
                               .Obj();
    client_pod.spec.affinity->pod_affinity->required.back().namespace_selector =
        MakeLabelSelector().Label("team", absl::StrCat("db-", sched)).Obj();
    Create(client_pod);
  }
  std::map<std::string, std::map<std::string, std::string>> placed;
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    Outcome o;
    ASSERT_TRUE(WaitDecided(absl::StrCat("ipa-", sched), 10, &o)) << o.Describe();
    std::set<std::string> b_nodes;
    for (int i = 0; i < 3; ++i) {
      const std::string name = absl::StrCat("rev-b-", i);
      ASSERT_TRUE(o.node_of.contains(name)) << o.Describe();
      b_nodes.insert(o.node_of[name]);
    }
    EXPECT_EQ(b_nodes, (std::set<std::string>{"node-3", "node-4", "node-5"})) << o.Describe();
    EXPECT_EQ(o.node_of["tenant-y-new"], "node-8") << o.Describe();
    EXPECT_EQ(o.node_of["db-client"], "node-6") << o.Describe();
    placed[sched] = {{"tenant-y-new", o.node_of["tenant-y-new"]},
                     {"db-client", o.node_of["db-client"]}};
    std::printf("[affinity terms] %s: revision b on %s; tenant-y-new on %s; db-client on %s\n",
                sched.c_str(), absl::StrJoin(b_nodes, ",").c_str(),
                o.node_of["tenant-y-new"].c_str(), o.node_of["db-client"].c_str());
  }
  EXPECT_EQ(placed[kTrimaran], placed[kKube]);
}

// 11. nodeTaintsPolicy, on a cluster of its own: t-a (zone-a), t-b (zone-b) and t-c
// (zone-c, tainted dedicated=x:NoSchedule, which no pod tolerates).
TEST(ConstraintsTaintsE2ETest, NodeTaintsPolicyHonorLeavesOutZonesOfUntoleratedNodes) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Cluster> cluster, Cluster::Start());
  for (const auto& [name, zone] : std::vector<std::pair<std::string, std::string>>{
           {"t-a", "zone-a"}, {"t-b", "zone-b"}, {"t-c", "zone-c"}}) {
    TRIMARAN_ASSERT_OK(cluster->AddNode(
        name, {.cpu = "16", .memory = "64Gi", .labels = {{kHostname, name}, {kZone, zone}}}));
  }
  TRIMARAN_ASSERT_OK(cluster->Send(
      "PATCH", "/api/v1/nodes/t-c",
      R"({"spec":{"taints":[{"key":"dedicated","value":"x","effect":"NoSchedule"}]}})",
      "application/merge-patch+json"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess trimaran,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cluster->control_plane().dir(),
                             .tag = "taints-policy",
                             .config_yaml = SchedulerConfigYaml(kTrimaran, false),
                             .kubeconfig = cluster->kubeconfig()}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<KubeScheduler> kube,
      KubeScheduler::Start(cluster->control_plane(), {.kubeconfig = cluster->kubeconfig(),
                                                      .profiles_yaml = "  - schedulerName: kube\n",
                                                      .tag = "kube-scheduler-taints-policy"}));
  constexpr int kPods = 4;
  for (const std::string sched : {kTrimaran, kKube}) {
    for (const std::string policy : {"ignore", "honor"}) {
      const std::string ns = absl::StrCat("ntp-", policy, "-", sched);
      TRIMARAN_ASSERT_OK(cluster->Send("POST", "/api/v1/namespaces",
                                       absl::StrCat(R"({"metadata":{"name":")", ns, R"("}})")));
      for (int i = 0; i < kPods; ++i) {
        kube::Pod pod =
            MakePod()
                .Name(absl::StrCat("ntp-", i))
                .Namespace(ns)
                .SchedulerName(sched)
                .Label("app", "ntp")
                .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                .SpreadConstraint(1, kZone, kube::UnsatisfiableConstraintAction::kDoNotSchedule,
                                  MakeLabelSelector().Label("app", "ntp").Obj())
                .Obj();
        if (policy == "honor") {
          pod.spec.topology_spread_constraints.back().node_taints_policy =
              kube::NodeInclusionPolicy::kHonor;
        }
        TRIMARAN_ASSERT_OK(cluster->client().CreatePod(pod).status());
      }
    }
  }
  // Bound pods per zone, and the pending pods' PodScheduled=False messages.
  auto decided = [&](const std::string& ns, std::map<std::string, int>* zones,
                     std::vector<std::string>* pending) {
    absl::StatusOr<kube::PodList> list = cluster->client().ListPods(ns, {});
    if (!list.ok()) return false;
    zones->clear();
    pending->clear();
    for (const kube::Pod& p : list->items) {
      if (!p.spec.node_name.empty()) {
        ++(*zones)[p.spec.node_name == "t-a"   ? "zone-a"
                   : p.spec.node_name == "t-b" ? "zone-b"
                                               : "zone-c"];
        continue;
      }
      const kube::PodCondition* c = kube::FindCondition(p.status, kube::kPodScheduled);
      if (c != nullptr && c->status == kube::ConditionStatus::kFalse)
        pending->push_back(c->message);
    }
    return static_cast<int>(list->items.size()) == kPods &&
           std::accumulate(zones->begin(), zones->end(), 0,
                           [](int n, const auto& kv) { return n + kv.second; }) +
                   static_cast<int>(pending->size()) ==
               kPods;
  };
  std::map<std::string, std::vector<std::string>> messages;
  for (const std::string sched : {kTrimaran, kKube}) {
    SCOPED_TRACE(sched);
    std::map<std::string, int> ignore, honor;
    std::vector<std::string> ignore_pending, honor_pending;
    ASSERT_TRUE(Eventually(
        [&] {
          return decided(absl::StrCat("ntp-ignore-", sched), &ignore, &ignore_pending) &&
                 decided(absl::StrCat("ntp-honor-", sched), &honor, &honor_pending);
        },
        kDecideTimeout))
        << trimaran.process->LogTail() << kube->process().LogTail();
    EXPECT_EQ(ignore, (std::map<std::string, int>{{"zone-a", 1}, {"zone-b", 1}}));
    EXPECT_EQ(ignore_pending.size(), 2u);
    EXPECT_EQ(honor, (std::map<std::string, int>{{"zone-a", 2}, {"zone-b", 2}}));
    EXPECT_TRUE(honor_pending.empty());
    std::sort(ignore_pending.begin(), ignore_pending.end());
    messages[sched] = ignore_pending;
    std::printf("[nodeTaintsPolicy] %s: Ignore %s + %zu pending (%s); Honor %s\n", sched.c_str(),
                Counts(ignore).c_str(), ignore_pending.size(),
                ignore_pending.empty() ? "" : ignore_pending[0].c_str(), Counts(honor).c_str());
  }
  EXPECT_EQ(messages[kTrimaran], messages[kKube]);
}

}  // namespace
}  // namespace trimaran::e2e
