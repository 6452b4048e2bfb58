#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/manual_clock.h"
#include "common/status_macros.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/quantity.h"
#include "loadwatcher/metrics.h"
#include "scheduler/explain/explainer.h"
#include "sim/autoscaler.h"
#include "sim/consolidation.h"
#include "sim/load_windows.h"

namespace trimaran::sim {
namespace {

constexpr double kHoursPerMonth = 730;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kWindowSeconds = 900;  // samples kept: the longest window (load_windows.h)

// Where virtual time 0 is on the plugins' clock.
const absl::Time kEpoch = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z

struct SimNode {
  std::string name;
  const NodeGroup* group = nullptr;
  double created = 0;  // the scale-up decision (billing starts)
  double ready = 0;
  bool is_ready = false;
  std::shared_ptr<const kube::Node> object;
  std::set<size_t> pods;  // pod indexes
  int64_t req_cpu = 0;
  int64_t req_mem = 0;
  // (t, cpu_milli, memory_mib) samples within the window.
  std::deque<UsagePoint> samples;
  double hot_run = 0;
  double last_change = 0;  // last pod bound or removed, or readiness
};

struct PodState {
  std::shared_ptr<const kube::Pod> object;  // as bound (spec.nodeName set) when running
  std::string node;
  double bind_time = -1;
  double first_bind = -1;
  double remaining = kInf;  // run time left (duration pods), kInf otherwise
  int epoch = 0;            // bumps on each bind, so stale end events are ignored
  int64_t attempted_generation = -1;
};

// A pod the simulation holds: arrived and not ended (pending or running).
struct LivePod {
  TracePod pod;
  PodState state;
};

// A node of group `g` named `name`, as the simulator's cache holds it.
std::shared_ptr<const kube::Node> NodeObject(const NodeGroup& g, const std::string& name) {
  kube::Node node;
  node.metadata.name = name;
  node.metadata.uid = name;
  node.metadata.labels = kube::Labels(g.labels.begin(), g.labels.end());
  node.metadata.labels["kubernetes.io/hostname"] = name;
  node.metadata.labels["node.kubernetes.io/instance-type"] = g.instance_type;
  node.metadata.labels["trimaran.io/node-group"] = g.name;
  kube::ResourceList r;
  r[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(g.cpu_milli);
  r[std::string(kube::kResourceMemory)] =
      kube::Quantity::FromValue(g.memory_mib * 1024 * 1024, kube::QuantityFormat::kBinarySI);
  r[std::string(kube::kResourcePods)] = kube::Quantity::FromValue(g.pods);
  node.status.capacity = r;
  node.status.allocatable = r;
  return std::make_shared<const kube::Node>(std::move(node));
}

// The nearest-rank percentile of `zeros` zeros and the values `v` (all > 0).
double Percentile(int64_t zeros, std::vector<double> v, double p) {
  const size_t n = static_cast<size_t>(zeros) + v.size();
  if (n == 0) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
  const size_t at = std::min(n - 1, rank == 0 ? 0 : rank - 1);
  if (at < static_cast<size_t>(zeros)) return 0;
  const auto nth = v.begin() + static_cast<std::ptrdiff_t>(at - static_cast<size_t>(zeros));
  std::nth_element(v.begin(), nth, v.end());
  return *nth;
}

class Run {
 public:
  Run(PodSource& source, const ClusterSpec& cluster, const sched::ProfileConfig& profile,
      const SimOptions& options)
      : source_(source),
        cluster_(cluster),
        profile_(profile.scheduler_name),
        options_(options),
        clock_(kEpoch),
        rng_(options.seed),
        compaction_rng_(options.seed ^ 0x9e3779b97f4a7c15ULL),
        scale_down_(cluster.autoscaler),
        fit_filter_(std::find(profile.filter.begin(), profile.filter.end(), "NodeResourcesFit") !=
                    profile.filter.end()) {}

  absl::Status Init(const sched::ProfileConfig& profile, const sched::Registry& registry) {
    profile_config_ = &profile;
    registry_ = &registry;
    for (const NodeGroup& g : cluster_.groups) {
      max_alloc_cpu_ = std::max(max_alloc_cpu_, static_cast<double>(g.cpu_milli));
      max_alloc_mem_ = std::max(max_alloc_mem_, static_cast<double>(g.memory_mib));
    }
    sched::explain::Explainer::Options eo;
    eo.registry = &registry;
    eo.clock = &clock_;
    eo.metrics = lw::WatcherMetrics{};
    TRIMARAN_ASSIGN_OR_RETURN(explainer_, sched::explain::Explainer::Create({profile}, eo));
    TRIMARAN_RETURN_IF_ERROR(explainer_->FrameworkFor(profile_).status());
    for (const NodeGroup& g : cluster_.groups) {
      for (int i = 0; i < g.initial; ++i) {
        NewNode(g, 0, /*ready_at=*/0);
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ProfileResult> Go() {
    result_.profile = profile_;
    double next_scan = 0;
    double next_sample = 0;
    double next_timeline = 0;
    double next_compaction = options_.compaction_trials > 0 && options_.compaction_every > 0
                                 ? options_.compaction_every
                                 : kInf;
    double now = 0;
    while (true) {
      double t = std::min({next_scan, next_sample, next_timeline, next_compaction});
      TRIMARAN_RETURN_IF_ERROR(Peek());
      if (next_.has_value()) t = std::min(t, next_->creation_time);
      if (!ends_.empty()) t = std::min(t, ends_.begin()->first);
      if (!starting_.empty()) t = std::min(t, starting_.begin()->first);
      if (t > options_.max_time) break;
      now = t;
      clock_now_ = now;
      clock_.SetTime(kEpoch + absl::Seconds(now));
      ProcessEnds(now);
      ProcessReady(now);
      while (next_.has_value() && next_->creation_time <= now) {
        Arrive(now);
        TRIMARAN_RETURN_IF_ERROR(Peek());
      }
      ScheduleQueue(now);
      bool scaled_up = false;
      if (now >= next_scan) {
        if (cluster_.autoscaler.enabled) {
          TRIMARAN_ASSIGN_OR_RETURN(scaled_up, ScaleUp(now));
          TRIMARAN_RETURN_IF_ERROR(ScaleDown(now));
          ScheduleQueue(now);
        }
        next_scan += cluster_.autoscaler.scan_interval;
        TrackPeak();
        CapturePeakForCompaction(now);
        // Done: nothing will arrive, end or start, and the autoscaler added nothing (pods
        // without an end run to here; pending pods no group can take stay pending).
        if (!next_.has_value() && ends_.empty() && starting_.empty() && !scaled_up) {
          // Then let the autoscaler remove what it will (nodes cost until they go),
          // bounded: the unneeded time, the delay after add and one more hour.
          if (!quiet_since_.has_value()) quiet_since_ = now;
          const AutoscalerConfig& a = cluster_.autoscaler;
          const double limit =
              *quiet_since_ + a.scale_down_unneeded_time + a.scale_down_delay_after_add + 3600;
          if (!cluster_.autoscaler.enabled || !AnyRemovable() || now >= limit) break;
        } else {
          quiet_since_.reset();
        }
      }
      if (now >= next_sample) {
        Sample(now);
        next_sample += options_.sample_interval;
      }
      if (now >= next_timeline) {
        Timeline(now);
        next_timeline += options_.timeline_interval;
      }
      if (now >= next_compaction) {
        TRIMARAN_RETURN_IF_ERROR(Compact(now, "periodic", Present()));
        next_compaction += options_.compaction_every;
      }
    }
    if (peak_present_.has_value()) {
      // The plugins see the peak's time.
      clock_.SetTime(kEpoch + absl::Seconds(peak_time_));
      TRIMARAN_RETURN_IF_ERROR(Compact(peak_time_, "peak", *peak_present_));
    }
    // Pods past max_time count in the report's totals (never scheduled).
    while (next_.has_value()) {
      ++result_.pods;
      next_.reset();
      TRIMARAN_RETURN_IF_ERROR(Peek());
    }
    Finish(now);
    return result_;
  }

 private:
  SimNode& NewNode(const NodeGroup& g, double now, double ready_at) {
    const std::string name = absl::StrFormat("%s-%05d", g.name, next_node_id_[g.name]++);
    SimNode& n = nodes_[name];
    n.name = name;
    n.group = &g;
    n.created = now;
    n.ready = ready_at;
    n.object = NodeObject(g, name);
    starting_.emplace(n.ready, name);
    ++group_sizes_[g.name];
    return n;
  }

  void ProcessReady(double now) {
    while (!starting_.empty() && starting_.begin()->first <= now) {
      const std::string name = starting_.begin()->second;
      starting_.erase(starting_.begin());
      auto it = nodes_.find(name);
      if (it == nodes_.end()) continue;
      it->second.is_ready = true;
      it->second.last_change = now;
      if (absl::Status s = explainer_->cache().AddNode(it->second.object); s.ok()) ++generation_;
      // A consolidation replacement is ready: the node it replaces goes now.
      if (auto r = replaces_.find(name); r != replaces_.end()) {
        const std::vector<std::string> old = r->second;
        replaces_.erase(r);
        for (const std::string& o : old) {
          if (nodes_.contains(o)) RemoveNode(o, now);
        }
      }
    }
  }

  // The next pod of the source into next_, unless it holds one or the source ended.
  absl::Status Peek() {
    if (next_.has_value() || source_done_) return absl::OkStatus();
    TRIMARAN_ASSIGN_OR_RETURN(next_, source_.Next());
    if (!next_.has_value()) {
      source_done_ = true;
    } else {
      result_.peak_pods_held =
          std::max(result_.peak_pods_held, static_cast<int64_t>(live_.size()) + 1);
    }
    return absl::OkStatus();
  }

  const TracePod& Pod(size_t i) const { return live_.at(i).pod; }
  PodState& State(size_t i) { return live_.at(i).state; }
  const PodState& State(size_t i) const { return live_.at(i).state; }

  // next_ arrives: it becomes live pod number result_.pods.
  void Arrive(double now) {
    const size_t i = static_cast<size_t>(result_.pods++);
    LivePod& live = live_[i];
    live.pod = *std::move(next_);
    next_.reset();
    const TracePod& p = live.pod;
    PodState& s = live.state;
    s.remaining = p.duration.value_or(kInf);
    kube::Pod pod;
    pod.metadata.name = p.name;
    pod.metadata.namespace_name = "default";
    pod.metadata.uid = p.name;
    pod.metadata.labels = kube::Labels(p.labels.begin(), p.labels.end());
    if (!p.group.empty()) pod.metadata.labels["group"] = p.group;
    if (!p.role.empty()) pod.metadata.labels["role"] = p.role;
    pod.metadata.creation_timestamp = kEpoch + absl::Seconds(p.creation_time);
    pod.spec.scheduler_name = profile_;
    pod.spec.priority = p.priority;
    kube::Container c;
    c.name = "main";
    c.resources.requests[std::string(kube::kResourceCPU)] = kube::Quantity::FromMilli(p.cpu_milli);
    c.resources.requests[std::string(kube::kResourceMemory)] =
        kube::Quantity::FromValue(p.memory_mib * 1024 * 1024, kube::QuantityFormat::kBinarySI);
    pod.spec.containers.push_back(std::move(c));
    s.object = std::make_shared<const kube::Pod>(std::move(pod));
    if (p.deletion_time.has_value()) ends_.emplace(*p.deletion_time, std::make_pair(i, -1));
    pending_.insert(i);
    (void)now;
  }

  // Pods ending at or before `now`: deletion_time (bound or pending) or bind + duration.
  void ProcessEnds(double now) {
    while (!ends_.empty() && ends_.begin()->first <= now) {
      const auto [i, epoch] = ends_.begin()->second;
      ends_.erase(ends_.begin());
      auto live = live_.find(i);
      if (live == live_.end()) continue;  // ended already
      PodState& s = live->second.state;
      if (epoch >= 0 && epoch != s.epoch) continue;
      if (!s.node.empty()) {
        Unbind(i);
      } else {
        pending_.erase(i);
      }
      live_.erase(i);  // memory follows the live pods
    }
  }

  void Unbind(size_t i) {
    LivePod& live = live_.at(i);
    PodState& s = live.state;
    SimNode& n = nodes_.at(s.node);
    explainer_->cache().RemovePod(*s.object).IgnoreError();
    // As the daemon's pod-delete handler: plugins forget their placement of the pod.
    if (auto f = explainer_->FrameworkFor(profile_); f.ok())
      (*f)->RunPodDeletionListeners(*s.object);
    n.pods.erase(i);
    n.last_change = clock_now_;
    n.req_cpu -= live.pod.cpu_milli;
    n.req_mem -= live.pod.memory_mib;
    s.node.clear();
    --running_;
    ++generation_;
  }

  void ScheduleQueue(double now) {
    if (pending_.empty()) return;
    struct Queued {
      size_t i;
      LivePod* live;
    };
    std::vector<Queued> order;
    for (size_t i : pending_) {
      LivePod& live = live_.at(i);
      if (live.state.attempted_generation != generation_) order.push_back({i, &live});
    }
    std::stable_sort(order.begin(), order.end(), [](const Queued& a, const Queued& b) {
      if (a.live->pod.priority != b.live->pod.priority) {
        return a.live->pod.priority > b.live->pod.priority;
      }
      return a.live->pod.creation_time < b.live->pod.creation_time;
    });
    std::vector<Room> room = FreeRoom();
    for (const auto& [i, live] : order) {
      PodState& s = live->state;
      s.attempted_generation = generation_;
      ++result_.scheduling_cycles;
      // No ready node has the pod's requests free, so NodeResourcesFit rejects every node
      // and the cycle would find none: the same outcome, without running it (a cycle that
      // finds no node leaves the rotating start index where it was).
      if (fit_filter_ && !MayFit(room, live->pod.cpu_milli, live->pod.memory_mib)) {
        ++result_.cycles_without_room;
        continue;
      }
      // Reserve as the daemon does (TargetLoadPacking's recent pods count the pod).
      absl::StatusOr<std::string> chosen =
          explainer_->Place(*s.object, profile_, {.reserve = true});
      if (!chosen.ok()) {
        if (result_.scheduler_errors++ == 0) {
          result_.first_scheduler_error = std::string(chosen.status().message());
        }
        continue;
      }
      if (chosen->empty()) continue;
      Bind(i, *chosen, now);
      if (fit_filter_) {
        const SimNode* bound = &nodes_.at(*chosen);
        for (Room& r : room) {
          if (r.node == bound) r = RoomOf(*bound);
        }
      }
    }
  }

  // What each ready node has free (CPU, memory, pod slots), for ScheduleQueue's short cut;
  // empty when the profile has no NodeResourcesFit filter.
  struct Room {
    const SimNode* node;
    int64_t cpu_milli;
    int64_t memory_mib;
    int64_t pods;
  };
  std::vector<Room> FreeRoom() const {
    std::vector<Room> room;
    if (!fit_filter_) return room;
    room.reserve(nodes_.size());
    for (const auto& [name, n] : nodes_) {
      if (n.is_ready) room.push_back(RoomOf(n));
    }
    return room;
  }
  static Room RoomOf(const SimNode& n) {
    return {&n, n.group->cpu_milli - n.req_cpu, n.group->memory_mib - n.req_mem,
            n.group->pods - static_cast<int64_t>(n.pods.size())};
  }
  // Whether some node has `cpu` and `memory` free and a pod slot.
  static bool MayFit(const std::vector<Room>& room, int64_t cpu, int64_t memory) {
    for (const Room& r : room) {
      if (r.cpu_milli >= cpu && r.memory_mib >= memory && r.pods > 0) return true;
    }
    return false;
  }

  void Bind(size_t i, const std::string& node_name, double now) {
    LivePod& live = live_.at(i);
    const TracePod& pod = live.pod;
    PodState& s = live.state;
    auto bound = std::make_shared<kube::Pod>(*s.object);
    bound->spec.node_name = node_name;
    if (absl::Status st = explainer_->cache().AddPod(bound); !st.ok()) {
      if (result_.scheduler_errors++ == 0)
        result_.first_scheduler_error = std::string(st.message());
      return;
    }
    s.object = std::move(bound);
    s.node = node_name;
    s.bind_time = now;
    if (options_.record_placements) result_.placements.push_back({now, pod.name, node_name});
    if (s.first_bind < 0) {
      s.first_bind = now;
      ++result_.scheduled;
      const double waited = now - pod.creation_time;
      if (waited == 0) {
        ++bound_on_arrival_;
      } else {
        pending_times_.push_back(waited);
      }
    }
    ++s.epoch;
    if (s.remaining < kInf) ends_.emplace(now + s.remaining, std::make_pair(i, s.epoch));
    pending_.erase(i);
    SimNode& n = nodes_.at(node_name);
    n.pods.insert(i);
    n.last_change = now;
    n.req_cpu += pod.cpu_milli;
    n.req_mem += pod.memory_mib;
    ++running_;
  }

  std::vector<Request> PendingRequests() {
    std::vector<Request> out;
    for (size_t i : pending_) {
      // Only pods the scheduler found unschedulable (PodScheduled=False) trigger CA.
      const LivePod& live = live_.at(i);
      if (live.state.attempted_generation < 0) continue;
      out.push_back({live.pod.cpu_milli, live.pod.memory_mib});
    }
    return out;
  }

  absl::StatusOr<bool> ScaleUp(double now) {
    std::vector<Request> pending = PendingRequests();
    if (pending.empty()) return false;
    // Pods that fit on nodes still starting wait for them (CA's upcoming nodes).
    std::vector<NodeLoad> upcoming;
    for (const auto& [ready, name] : starting_) {
      const SimNode& n = nodes_.at(name);
      upcoming.push_back(
          {name, n.group->name, n.group->cpu_milli, n.group->memory_mib, n.group->pods, {}});
    }
    if (!upcoming.empty()) {
      std::vector<Request> left;
      std::stable_sort(pending.begin(), pending.end(), [](const Request& a, const Request& b) {
        return a.cpu_milli > b.cpu_milli;
      });
      for (const Request& r : pending) {
        bool placed = false;
        for (NodeLoad& u : upcoming) {
          if (FitsElsewhere({r}, {u})) {
            u.pods.push_back(r);
            placed = true;
            break;
          }
        }
        if (!placed) left.push_back(r);
      }
      pending = std::move(left);
      if (pending.empty()) return false;
    }
    std::vector<GroupCapacity> groups;
    for (const NodeGroup& g : cluster_.groups) {
      groups.push_back({&g, g.max - group_sizes_[g.name]});
    }
    ScaleUpPlan plan = PlanScaleUp(groups, pending, cluster_.autoscaler.expander,
                                   cluster_.autoscaler.max_nodes_per_scale_up, rng_);
    if (!plan.chosen.has_value()) return false;
    const ScaleUpOption& o = plan.options[*plan.chosen];
    const NodeGroup* group = nullptr;
    for (const NodeGroup& g : cluster_.groups) {
      if (g.name == o.group) group = &g;
    }
    for (int k = 0; k < o.nodes; ++k) NewNode(*group, now, now + group->startup_delay);
    ++result_.scale_up_events;
    result_.nodes_added += o.nodes;
    scale_down_.ScaledUp(now);
    return true;
  }

  absl::Status ScaleDown(double now) {
    std::vector<NodeLoad> loads;
    std::map<std::string, double> last_change;
    std::set<std::string> replacing;
    for (const auto& [fresh, old] : replaces_) replacing.insert(old.begin(), old.end());
    for (const auto& [name, n] : nodes_) {
      if (!n.is_ready) continue;
      // A node being replaced is neither a candidate nor a destination (it is tainted and
      // goes when its replacement is ready).
      if (cluster_.autoscaler.consolidation != Consolidation::kNone && replacing.contains(name)) {
        continue;
      }
      NodeLoad l{name, n.group->name, n.group->cpu_milli, n.group->memory_mib, n.group->pods, {}};
      for (size_t i : n.pods) l.pods.push_back({Pod(i).cpu_milli, Pod(i).memory_mib});
      // A node being replaced is no candidate (it goes when its replacement is ready).
      last_change[name] = replacing.contains(name) ? kInf : n.last_change;
      loads.push_back(std::move(l));
    }
    if (cluster_.autoscaler.consolidation != Consolidation::kNone) {
      const FitCheck fit = [this](const std::vector<const NodeLoad*>& removed,
                                  const std::vector<const NodeLoad*>& kept,
                                  const NodeGroup* replacement) {
        return ProfileFits(removed, kept, replacement);
      };
      for (const ConsolidationAction& a : PlanConsolidation(
               now, loads, last_change, group_sizes_, cluster_.groups, cluster_.autoscaler, fit)) {
        ++result_.scale_down_events;
        if (a.multi_node) ++result_.consolidation_multi_node;
        if (a.kind == ConsolidationAction::Kind::kReplace) {
          for (const NodeGroup& g : cluster_.groups) {
            if (g.name != a.replacement_group) continue;
            SimNode& fresh = NewNode(g, now, now + g.startup_delay);
            replaces_[fresh.name] = a.nodes;
            // Karpenter taints the nodes it disrupts (karpenter.sh/disrupted:NoSchedule)
            // so that no new pod lands on them while the replacement starts.
            for (const std::string& old : a.nodes) Taint(nodes_.at(old));
            ++result_.nodes_added;
            ++result_.consolidation_replacements;
          }
          continue;
        }
        for (const std::string& name : a.nodes) RemoveNode(name, now);
      }
      return absl::OkStatus();
    }
    std::vector<std::string> remove = scale_down_.Scan(now, loads, group_sizes_, cluster_.groups);
    if (remove.empty()) return absl::OkStatus();
    ++result_.scale_down_events;
    for (const std::string& name : remove) RemoveNode(name, now);
    return absl::OkStatus();
  }

  void Taint(SimNode& n) {
    auto tainted = std::make_shared<kube::Node>(*n.object);
    tainted->spec.taints.push_back(
        {"karpenter.sh/disrupted", "", kube::TaintEffect::kNoSchedule, std::nullopt});
    n.object = tainted;
    if (explainer_->cache().UpdateNode(std::move(tainted)).ok()) ++generation_;
  }

  // Drains `name` (its pods go back to the queue with the run time they had left) and
  // removes it.
  void RemoveNode(const std::string& name, double now) {
    SimNode& n = nodes_.at(name);
    const std::set<size_t> pods = n.pods;
    for (size_t i : pods) {
      PodState& s = State(i);
      if (s.remaining < kInf) s.remaining = std::max(0.0, s.remaining - (now - s.bind_time));
      const std::shared_ptr<const kube::Pod> bound = s.object;
      Unbind(i);
      auto unbound = std::make_shared<kube::Pod>(*bound);
      unbound->spec.node_name.clear();
      s.object = std::move(unbound);
      s.attempted_generation = -1;
      ++s.epoch;
      pending_.insert(i);
      ++result_.evicted;
    }
    explainer_->cache().RemoveNode(*n.object).IgnoreError();
    Retire(n, now);
    --group_sizes_[n.group->name];
    nodes_.erase(name);
    ++result_.nodes_removed;
    ++generation_;
  }

  // Whether some ready node is above its group's min and unneeded (scale-down pending).
  bool AnyRemovable() const {
    for (const auto& [name, n] : nodes_) {
      if (n.is_ready && group_sizes_.at(n.group->name) > n.group->min &&
          scale_down_.UnneededSince(name).has_value()) {
        return true;
      }
    }
    return false;
  }

  void Retire(const SimNode& n, double now) {
    const double hours = (now - n.created) / 3600;
    result_.node_hours += hours;
    result_.cost += hours * n.group->price_per_hour;
  }

  // One load-watcher sample and snapshot, and the hot-node counters.
  void Sample(double now) {
    LoadSnapshots snapshots(absl::ToUnixSeconds(kEpoch + absl::Seconds(now)), now);
    const double minutes = options_.sample_interval / 60;
    for (auto& [name, n] : nodes_) {
      if (!n.is_ready) continue;
      UsagePoint u{now, n.group->background_cpu_milli, n.group->background_memory_mib};
      for (size_t i : n.pods) {
        const LivePod& live = live_.at(i);
        const UsagePoint p = live.pod.UsageAt(now - live.state.bind_time);
        u.cpu_milli += p.cpu_milli;
        u.memory_mib += p.memory_mib;
      }
      n.samples.push_back(u);
      while (!n.samples.empty() && n.samples.front().t <= now - kWindowSeconds) {
        n.samples.pop_front();
      }
      const double cpu_alloc = static_cast<double>(n.group->cpu_milli);
      snapshots.AddNode(name, n.samples, cpu_alloc, static_cast<double>(n.group->memory_mib));

      // Hot nodes and over-commit, from the instantaneous usage.
      const double cpu_frac = u.cpu_milli / cpu_alloc;
      result_.peak_node_cpu_usage = std::max(result_.peak_node_cpu_usage, cpu_frac);
      const size_t bucket = std::min<size_t>(10, static_cast<size_t>(cpu_frac * 10));
      ++result_.cpu_usage_histogram[bucket];
      if (cpu_frac > 1.0) result_.above_100_cpu_node_minutes += minutes;
      if (cpu_frac > options_.target_utilization) result_.above_target_node_minutes += minutes;
      if (u.memory_mib > n.group->memory_mib) {
        result_.memory_over_allocatable_node_minutes += minutes;
      }
      if (cpu_frac > options_.hot_threshold) {
        n.hot_run += options_.sample_interval;
        if (n.hot_run >= options_.hot_min_duration) {
          // The whole run counts once it is long enough.
          result_.hot_node_minutes +=
              n.hot_run - options_.sample_interval >= options_.hot_min_duration ? minutes
                                                                                : n.hot_run / 60;
        }
      } else {
        n.hot_run = 0;
      }
    }
    explainer_->SetMetricsByWindow(std::move(snapshots).Take());
    // The lower bound, over the pods present (running and pending).
    double cpu = 0, mem = 0;
    for (const auto& [name, n] : nodes_) {
      cpu += n.req_cpu;
      mem += n.req_mem;
    }
    for (size_t i : pending_) {
      cpu += Pod(i).cpu_milli;
      mem += Pod(i).memory_mib;
    }
    const double hours = options_.sample_interval / 3600;
    lb_rate_ = LowerBoundCostPerHour(cluster_.groups, cpu, mem);
    result_.lower_bound_cost += lb_rate_ * hours;
    if (cluster_.groups.size() == 1) {
      const NodeGroup& g = cluster_.groups.front();
      result_.lower_bound_node_hours +=
          std::max(std::ceil(cpu / g.cpu_milli), std::ceil(mem / g.memory_mib)) * hours;
    }
  }

  void Timeline(double now) {
    TimelinePoint p;
    p.t = now;
    p.pending = static_cast<int>(pending_.size());
    p.running = running_;
    double alloc = 0, req = 0, used = 0;
    for (const auto& [name, n] : nodes_) {
      ++p.nodes;
      p.cost_per_hour += n.group->price_per_hour;
      if (!n.is_ready) continue;
      alloc += n.group->cpu_milli;
      req += n.req_cpu;
      if (!n.samples.empty()) used += n.samples.back().cpu_milli;
    }
    p.lower_bound_cost_per_hour = lb_rate_;
    p.cpu_requested = alloc > 0 ? req / alloc : 0;
    p.cpu_used = alloc > 0 ? used / alloc : 0;
    result_.timeline.push_back(p);
  }

  // Reads the fallback counters from the plugins' stats (Prometheus text lines
  // `trimaran_plugin_metrics_fallback_total{plugin="P",reason="R"} N`).
  void CountFallbacks() {
    constexpr absl::string_view kFamily = "trimaran_plugin_metrics_fallback_total{";
    const std::string text = explainer_->stats().PrometheusText();
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!absl::ConsumePrefix(&line, kFamily)) continue;
      const size_t close = line.rfind('}');
      if (close == absl::string_view::npos) continue;
      std::string plugin;
      std::string reason;
      for (absl::string_view label : absl::StrSplit(line.substr(0, close), ',')) {
        std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(label, '=');
        std::string value(absl::StripSuffix(absl::StripPrefix(kv.second, "\""), "\""));
        if (kv.first == "plugin") plugin = value;
        if (kv.first == "reason") reason = value;
      }
      double count = 0;
      if (!absl::SimpleAtod(absl::StripAsciiWhitespace(line.substr(close + 1)), &count) ||
          count <= 0) {
        continue;
      }
      result_.fallbacks[absl::StrCat(plugin, "/", reason)] += static_cast<int64_t>(count);
    }
  }

  void Finish(double now) {
    CountFallbacks();
    result_.compaction.trials = options_.compaction_trials;
    result_.compaction.every = options_.compaction_every;
    SummarizeCompaction(result_.compaction);
    result_.end_time = now;
    for (const auto& [name, n] : nodes_) Retire(n, now);
    result_.never_scheduled = result_.pods - result_.scheduled;
    result_.pending_p50 = Percentile(bound_on_arrival_, pending_times_, 0.5);
    result_.pending_p99 = Percentile(bound_on_arrival_, pending_times_, 0.99);
    for (double p : pending_times_) result_.pending_max = std::max(result_.pending_max, p);
    if (now > 0) result_.cost_per_month = result_.cost / (now / 3600) * kHoursPerMonth;
    if (result_.cost > 0) result_.packing_efficiency = result_.lower_bound_cost / result_.cost;
    if (result_.lower_bound_node_hours > 0) {
      result_.node_hours_over_lower_bound = result_.node_hours / result_.lower_bound_node_hours;
    }
  }

  // Compaction (compaction.h): the ready nodes and the pods running on them, the pods in
  // the queue's order (priority, then arrival).
  struct PresentState {
    std::vector<std::shared_ptr<const kube::Node>> nodes;
    std::vector<std::shared_ptr<const kube::Pod>> pods;
  };
  PresentState Present() const {
    PresentState p;
    std::vector<size_t> pods;
    for (const auto& [name, n] : nodes_) {
      if (!n.is_ready) continue;
      // Without the karpenter.sh/disrupted taint of a node being replaced: the re-pack
      // counts capacity.
      p.nodes.push_back(n.object->spec.taints.empty() ? n.object : NodeObject(*n.group, name));
      pods.insert(pods.end(), n.pods.begin(), n.pods.end());
    }
    for (size_t i : RepackOrder(std::move(pods))) p.pods.push_back(State(i).object);
    return p;
  }

  // Priority first, then largest first (first-fit decreasing's order, by the dominant
  // share of the largest group's allocatable), then arrival.
  std::vector<size_t> RepackOrder(std::vector<size_t> pods) const {
    auto size = [&](size_t i) {
      return std::max(static_cast<double>(Pod(i).cpu_milli) / max_alloc_cpu_,
                      static_cast<double>(Pod(i).memory_mib) / max_alloc_mem_);
    };
    std::sort(pods.begin(), pods.end(), [&](size_t a, size_t b) {
      if (Pod(a).priority != Pod(b).priority) return Pod(a).priority > Pod(b).priority;
      if (size(a) != size(b)) return size(a) > size(b);
      return a < b;
    });
    return pods;
  }

  // Consolidation's fit check through the profile under test (consolidation.h): the
  // removed nodes' pods re-placed by the profile onto the kept nodes, which keep their
  // pods, plus the replacement. The requests' first-fit decreasing runs first as a cheap
  // pre-filter, so the profile is asked only about moves that fit by requests.
  bool ProfileFits(const std::vector<const NodeLoad*>& removed,
                   const std::vector<const NodeLoad*>& kept, const NodeGroup* replacement) {
    if (!FitsByRequests(removed, kept, replacement)) return false;
    std::vector<std::shared_ptr<const kube::Node>> nodes;
    std::vector<std::shared_ptr<const kube::Pod>> bound;
    for (const NodeLoad* k : kept) {
      const SimNode& n = nodes_.at(k->name);
      nodes.push_back(n.object);
      for (size_t i : n.pods) bound.push_back(State(i).object);
    }
    if (replacement != nullptr) {
      nodes.push_back(NodeObject(*replacement, "consolidation-replacement"));
    }
    std::vector<size_t> moving;
    for (const NodeLoad* r : removed) {
      const SimNode& n = nodes_.at(r->name);
      moving.insert(moving.end(), n.pods.begin(), n.pods.end());
    }
    std::vector<std::shared_ptr<const kube::Pod>> moved;
    for (size_t i : RepackOrder(std::move(moving))) moved.push_back(State(i).object);
    ++result_.consolidation_fit_checks;
    int64_t errors = 0;
    absl::StatusOr<bool> fits =
        PlacesOnto(nodes, bound, moved, *profile_config_, *registry_, clock_, &errors);
    if (!fits.ok() || errors > 0) {
      if (result_.scheduler_errors++ == 0) {
        result_.first_scheduler_error = fits.ok() ? "consolidation fit check: plugin error"
                                                  : std::string(fits.status().message());
      }
      return false;
    }
    return *fits;
  }

  void CapturePeakForCompaction(double now) {
    if (options_.compaction_trials <= 0 || !options_.compaction_at_peak) return;
    int ready = 0;
    for (const auto& [name, n] : nodes_) ready += n.is_ready ? 1 : 0;
    if (ready <= peak_ready_) return;
    peak_ready_ = ready;
    peak_time_ = now;
    peak_present_ = Present();
  }

  absl::Status Compact(double now, const char* why, const PresentState& present) {
    if (present.pods.empty()) return absl::OkStatus();
    CompactionResult& c = result_.compaction;
    const std::clock_t start = std::clock();
    TRIMARAN_ASSIGN_OR_RETURN(
        std::optional<std::vector<int>> sizes,
        CompactAt(present.nodes, present.pods, *profile_config_, *registry_, clock_,
                  options_.compaction_trials, compaction_rng_, &c.repacks, &c.scheduler_errors));
    c.cpu_seconds += static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    if (!sizes.has_value()) {
      ++c.skipped;
      return absl::OkStatus();
    }
    c.instants.push_back({now, why, static_cast<int>(present.nodes.size()),
                          static_cast<int>(present.pods.size()), *std::move(sizes)});
    return absl::OkStatus();
  }

  void TrackPeak() {
    result_.peak_nodes = std::max(result_.peak_nodes, static_cast<int>(nodes_.size()));
    for (const auto& [g, size] : group_sizes_) {
      int& peak = result_.peak_nodes_by_group[g];
      peak = std::max(peak, size);
    }
  }

  PodSource& source_;
  // The source's next pod, read ahead to know its arrival time.
  std::optional<TracePod> next_;
  bool source_done_ = false;
  const ClusterSpec& cluster_;
  const std::string profile_;
  const SimOptions options_;
  ManualClock clock_;
  std::mt19937_64 rng_;
  std::mt19937_64 compaction_rng_;
  const sched::ProfileConfig* profile_config_ = nullptr;
  const sched::Registry* registry_ = nullptr;
  int peak_ready_ = 0;
  double max_alloc_cpu_ = 1;
  double max_alloc_mem_ = 1;
  double peak_time_ = 0;
  std::optional<PresentState> peak_present_;
  ScaleDownState scale_down_;
  std::unique_ptr<sched::explain::Explainer> explainer_;
  // The pods arrived and not ended, by arrival number (pending_, nodes' pods and ends_
  // name them so).
  std::unordered_map<size_t, LivePod> live_;
  // The profile filters with NodeResourcesFit (ScheduleQueue's short cut).
  const bool fit_filter_;
  std::map<std::string, SimNode> nodes_;
  std::map<std::string, int> group_sizes_;
  std::map<std::string, int> next_node_id_;
  std::multimap<double, std::string> starting_;
  std::multimap<double, std::pair<size_t, int>> ends_;
  std::set<size_t> pending_;
  int running_ = 0;
  int64_t generation_ = 0;
  double lb_rate_ = 0;
  double clock_now_ = 0;
  // Consolidation replacements still starting: new node -> the node it replaces.
  std::map<std::string, std::vector<std::string>> replaces_;
  std::optional<double> quiet_since_;
  // Pending times (arrival to first bind): pods bound on arrival are counted, the others'
  // times kept (8 bytes per pod that waited).
  int64_t bound_on_arrival_ = 0;
  std::vector<double> pending_times_;
  ProfileResult result_;
};

}  // namespace

double LowerBoundCostPerHour(const std::vector<NodeGroup>& groups, double cpu_milli,
                             double memory_mib) {
  if (cpu_milli <= 0 && memory_mib <= 0) return 0;
  double best = kInf;
  for (const NodeGroup& g : groups) {
    const double x = std::max(cpu_milli / g.cpu_milli, memory_mib / g.memory_mib);
    best = std::min(best, x * g.price_per_hour);
  }
  // Vertices with both constraints tight on two types.
  for (size_t a = 0; a < groups.size(); ++a) {
    for (size_t b = a + 1; b < groups.size(); ++b) {
      const double a1 = groups[a].cpu_milli, b1 = groups[b].cpu_milli;
      const double a2 = groups[a].memory_mib, b2 = groups[b].memory_mib;
      const double det = a1 * b2 - b1 * a2;
      if (std::abs(det) < 1e-9) continue;
      const double xa = (cpu_milli * b2 - b1 * memory_mib) / det;
      const double xb = (a1 * memory_mib - cpu_milli * a2) / det;
      if (xa < -1e-9 || xb < -1e-9) continue;
      best = std::min(best, std::max(0.0, xa) * groups[a].price_per_hour +
                                std::max(0.0, xb) * groups[b].price_per_hour);
    }
  }
  return best == kInf ? 0 : best;
}

absl::StatusOr<ProfileResult> Simulate(PodSource& pods, const ClusterSpec& cluster,
                                       const sched::ProfileConfig& profile,
                                       const sched::Registry& registry, const SimOptions& options) {
  if (cluster.groups.empty()) return absl::InvalidArgumentError("no node groups");
  Run run(pods, cluster, profile, options);
  TRIMARAN_RETURN_IF_ERROR(run.Init(profile, registry));
  return run.Go();
}

absl::StatusOr<ProfileResult> Simulate(const std::vector<TracePod>& pods,
                                       const ClusterSpec& cluster,
                                       const sched::ProfileConfig& profile,
                                       const sched::Registry& registry, const SimOptions& options) {
  const auto by_arrival = [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  };
  if (std::is_sorted(pods.begin(), pods.end(), by_arrival)) {
    VectorPodSource source(pods);
    return Simulate(source, cluster, profile, registry, options);
  }
  std::vector<TracePod> sorted = pods;
  std::stable_sort(sorted.begin(), sorted.end(), by_arrival);
  VectorPodSource source(sorted);
  return Simulate(source, cluster, profile, registry, options);
}

}  // namespace trimaran::sim
