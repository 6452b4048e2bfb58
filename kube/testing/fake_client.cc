#include "kube/testing/fake_client.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "kube/store.h"

namespace trimaran::kube::testing {
namespace {

std::string Key(absl::string_view ns, absl::string_view name) {
  return absl::StrCat(ns, "/", name);
}

int64_t ParseRv(absl::string_view rv) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(rv, &v)) return -1;
  return v;
}

// Splits "a!=b" / "a=b" / "a==b" into (key, op, value).
bool SplitTerm(absl::string_view term, std::string* key, std::string* op, std::string* value) {
  size_t pos = term.find("!=");
  if (pos != absl::string_view::npos) {
    *op = "!=";
    *key = std::string(absl::StripAsciiWhitespace(term.substr(0, pos)));
    *value = std::string(absl::StripAsciiWhitespace(term.substr(pos + 2)));
    return true;
  }
  pos = term.find("==");
  size_t len = 2;
  if (pos == absl::string_view::npos) {
    pos = term.find('=');
    len = 1;
  }
  if (pos == absl::string_view::npos) return false;
  *op = "=";
  *key = std::string(absl::StripAsciiWhitespace(term.substr(0, pos)));
  *value = std::string(absl::StripAsciiWhitespace(term.substr(pos + len)));
  return true;
}

}  // namespace

absl::StatusOr<bool> MatchesLabelSelector(absl::string_view selector, const Labels& labels) {
  if (absl::StripAsciiWhitespace(selector).empty()) return true;
  for (absl::string_view raw : absl::StrSplit(selector, ',')) {
    absl::string_view term = absl::StripAsciiWhitespace(raw);
    std::string key, op, value;
    if (SplitTerm(term, &key, &op, &value)) {
      auto it = labels.find(key);
      bool eq = it != labels.end() && it->second == value;
      if ((op == "=") != eq) return false;
      continue;
    }
    if (absl::ConsumePrefix(&term, "!")) {
      if (labels.count(std::string(term))) return false;
      continue;
    }
    if (term.find_first_of(" ()") != absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported label selector term \"", term, "\""));
    }
    if (!labels.count(std::string(term))) return false;
  }
  return true;
}

absl::StatusOr<bool> MatchesPodFieldSelector(absl::string_view selector, const Pod& pod) {
  if (absl::StripAsciiWhitespace(selector).empty()) return true;
  for (absl::string_view raw : absl::StrSplit(selector, ',')) {
    std::string key, op, value;
    if (!SplitTerm(absl::StripAsciiWhitespace(raw), &key, &op, &value)) {
      return absl::InvalidArgumentError(absl::StrCat("invalid field selector term \"", raw, "\""));
    }
    std::string actual;
    if (key == "status.phase") {
      actual = std::string(ToString(pod.status.phase));
    } else if (key == "spec.nodeName") {
      actual = pod.spec.node_name;
    } else if (key == "spec.schedulerName") {
      actual = pod.spec.scheduler_name;
    } else if (key == "metadata.name") {
      actual = pod.metadata.name;
    } else if (key == "metadata.namespace") {
      actual = pod.metadata.namespace_name;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("field label not supported: \"", key, "\""));
    }
    if ((op == "=") != (actual == value)) return false;
  }
  return true;
}

FakeClient::FakeClient(const Clock& clock) : clock_(clock) {}

absl::Status FakeClient::Injected(const std::string& method) {
  ++calls_[method];
  auto it = failures_.find(method);
  if (it == failures_.end() || it->second.empty()) return absl::OkStatus();
  absl::Status s = it->second.front();
  it->second.pop_front();
  return s;
}

int64_t FakeClient::NextRv() { return ++rv_; }

void FakeClient::Record(WatchEventType type, const Pod* pod, const Node* node) {
  Change c{.rv = rv_, .type = type, .stream = pod != nullptr ? kPodStream : kNodeStream};
  if (pod) c.pod = *pod;
  if (node) c.node = *node;
  history_.push_back(std::move(c));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

void FakeClient::RecordObject(WatchEventType type, SelectorResource resource,
                              const SelectorObject& object) {
  Change c{.rv = rv_, .type = type, .stream = static_cast<int>(resource)};
  c.object = object;
  history_.push_back(std::move(c));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

void FakeClient::RecordStorage(WatchEventType type, const StorageObject& object) {
  Change c{
      .rv = rv_, .type = type, .stream = kStorageStreamBase + static_cast<int>(object.resource())};
  c.storage = object;
  history_.push_back(std::move(c));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().rv;
    history_.pop_front();
  }
}

// ---- Paged lists ----

// A continue token: "<the list's resourceVersion>|<the last key returned>".
std::string FakeClient::ContinueToken(int64_t list_rv, const std::string& last_key) {
  return absl::StrCat(list_rv, "|", last_key);
}

absl::Status FakeClient::ReadContinue(const std::string& token, int64_t* list_rv,
                                      std::string* after) const {
  if (token.empty()) return absl::OkStatus();
  const size_t bar = token.find('|');
  if (bar == std::string::npos || !absl::SimpleAtoi(token.substr(0, bar), list_rv)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid continue token \"", token, "\""));
  }
  if (*list_rv < compacted_rv_) {
    // The apiserver's 410 Expired (mapped to Aborted, as RestClient does).
    return absl::AbortedError(absl::StrCat(
        "The provided continue parameter is too old to display a consistent list result "
        "(resourceVersion ",
        *list_rv, ", compacted at ", compacted_rv_, ")"));
  }
  *after = token.substr(bar + 1);
  return absl::OkStatus();
}

// ---- Pods ----

absl::StatusOr<PodList> FakeClient::ListPods(absl::string_view ns, const ListOptions& options) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ListPods"); !s.ok()) return s;
  PodList list;
  int64_t list_rv = rv_;
  std::string after;
  if (absl::Status s = ReadContinue(options.continue_token, &list_rv, &after); !s.ok()) return s;
  list.metadata.resource_version = absl::StrCat(list_rv);
  auto it = options.continue_token.empty() ? pods_.begin() : pods_.upper_bound(after);
  for (; it != pods_.end(); ++it) {
    const Pod& pod = it->second;
    if (!ns.empty() && pod.metadata.namespace_name != ns) continue;
    absl::StatusOr<bool> lm = MatchesLabelSelector(options.label_selector, pod.metadata.labels);
    if (!lm.ok()) return lm.status();
    absl::StatusOr<bool> fm = MatchesPodFieldSelector(options.field_selector, pod);
    if (!fm.ok()) return fm.status();
    if (!*lm || !*fm) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.metadata.continue_token = ContinueToken(list_rv, ObjectKey(list.items.back()));
      break;
    }
    list.items.push_back(pod);
  }
  return list;
}

absl::StatusOr<Pod> FakeClient::GetPod(absl::string_view ns, absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("GetPod"); !s.ok()) return s;
  auto it = pods_.find(Key(ns, name));
  if (it == pods_.end()) {
    return absl::NotFoundError(
        absl::StrCat("get pod ", ns, "/", name, ": pods \"", name, "\" not found"));
  }
  return it->second;
}

absl::StatusOr<Pod> FakeClient::CreatePod(const Pod& pod) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("CreatePod"); !s.ok()) return s;
  Pod p = pod;
  if (p.metadata.namespace_name.empty()) p.metadata.namespace_name = "default";
  std::string key = ObjectKey(p);
  if (pods_.count(key)) {
    return absl::AlreadyExistsError(absl::StrCat("create pod ", key, ": already exists"));
  }
  if (p.metadata.uid.empty()) p.metadata.uid = absl::StrCat("uid-", ++uid_);
  if (!p.metadata.creation_timestamp) p.metadata.creation_timestamp = clock_.Now();
  p.metadata.resource_version = absl::StrCat(NextRv());
  pods_[key] = p;
  Record(WatchEventType::kAdded, &p, nullptr);
  return p;
}

absl::StatusOr<Pod> FakeClient::UpdatePod(const Pod& pod) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("UpdatePod"); !s.ok()) return s;
  auto it = pods_.find(ObjectKey(pod));
  if (it == pods_.end()) return absl::NotFoundError(absl::StrCat("pod ", ObjectKey(pod)));
  Pod p = pod;
  p.metadata.uid = it->second.metadata.uid;
  p.metadata.creation_timestamp = it->second.metadata.creation_timestamp;
  p.metadata.resource_version = absl::StrCat(NextRv());
  it->second = p;
  Record(WatchEventType::kModified, &p, nullptr);
  return p;
}

absl::Status FakeClient::DeletePod(absl::string_view ns, absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("DeletePod"); !s.ok()) return s;
  auto it = pods_.find(Key(ns, name));
  if (it == pods_.end()) return absl::NotFoundError(absl::StrCat("pod ", ns, "/", name));
  Pod p = std::move(it->second);
  pods_.erase(it);
  p.metadata.resource_version = absl::StrCat(NextRv());
  Record(WatchEventType::kDeleted, &p, nullptr);
  return absl::OkStatus();
}

absl::Status FakeClient::Bind(const Binding& binding) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("Bind"); !s.ok()) return s;
  std::string key = Key(binding.metadata.namespace_name, binding.metadata.name);
  auto it = pods_.find(key);
  if (it == pods_.end()) return absl::NotFoundError(absl::StrCat("bind pod ", key, ": not found"));
  Pod& p = it->second;
  if (!p.spec.node_name.empty()) {
    return absl::AbortedError(absl::StrCat("bind pod ", key, ": pod ", p.metadata.name,
                                           " is already assigned to node \"", p.spec.node_name,
                                           "\""));
  }
  p.spec.node_name = binding.target.name;
  PodStatusPatch patch;
  PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = ConditionStatus::kTrue;
  cond.last_transition_time = clock_.Now();
  patch.conditions.push_back(cond);
  ApplyPodStatusPatch(patch, p.status);
  p.metadata.resource_version = absl::StrCat(NextRv());
  bindings_.push_back(binding);
  Record(WatchEventType::kModified, &p, nullptr);
  return absl::OkStatus();
}

absl::Status FakeClient::PatchPodStatus(absl::string_view ns, absl::string_view name,
                                        const PodStatusPatch& patch) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("PatchPodStatus"); !s.ok()) return s;
  auto it = pods_.find(Key(ns, name));
  if (it == pods_.end()) return absl::NotFoundError(absl::StrCat("pod ", ns, "/", name));
  ApplyPodStatusPatch(patch, it->second.status);
  it->second.metadata.resource_version = absl::StrCat(NextRv());
  patches_.emplace_back(Key(ns, name), patch);
  Record(WatchEventType::kModified, &it->second, nullptr);
  return absl::OkStatus();
}

// ---- Nodes ----

absl::StatusOr<NodeList> FakeClient::ListNodes(const ListOptions& options) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ListNodes"); !s.ok()) return s;
  NodeList list;
  int64_t list_rv = rv_;
  std::string after;
  if (absl::Status s = ReadContinue(options.continue_token, &list_rv, &after); !s.ok()) return s;
  list.metadata.resource_version = absl::StrCat(list_rv);
  auto it = options.continue_token.empty() ? nodes_.begin() : nodes_.upper_bound(after);
  for (; it != nodes_.end(); ++it) {
    absl::StatusOr<bool> lm =
        MatchesLabelSelector(options.label_selector, it->second.metadata.labels);
    if (!lm.ok()) return lm.status();
    if (!*lm) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.metadata.continue_token = ContinueToken(list_rv, list.items.back().metadata.name);
      break;
    }
    list.items.push_back(it->second);
  }
  return list;
}

absl::StatusOr<Node> FakeClient::GetNode(absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("GetNode"); !s.ok()) return s;
  auto it = nodes_.find(std::string(name));
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", name));
  return it->second;
}

absl::StatusOr<Node> FakeClient::CreateNode(const Node& node) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("CreateNode"); !s.ok()) return s;
  if (nodes_.count(node.metadata.name)) {
    return absl::AlreadyExistsError(absl::StrCat("create node ", node.metadata.name));
  }
  Node n = node;
  if (n.metadata.uid.empty()) n.metadata.uid = absl::StrCat("uid-", ++uid_);
  if (!n.metadata.creation_timestamp) n.metadata.creation_timestamp = clock_.Now();
  n.metadata.resource_version = absl::StrCat(NextRv());
  nodes_[n.metadata.name] = n;
  Record(WatchEventType::kAdded, nullptr, &n);
  return n;
}

absl::StatusOr<Node> FakeClient::UpdateNode(const Node& node) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("UpdateNode"); !s.ok()) return s;
  auto it = nodes_.find(node.metadata.name);
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", node.metadata.name));
  Node n = node;
  n.metadata.uid = it->second.metadata.uid;
  n.metadata.resource_version = absl::StrCat(NextRv());
  it->second = n;
  Record(WatchEventType::kModified, nullptr, &n);
  return n;
}

absl::Status FakeClient::DeleteNode(absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("DeleteNode"); !s.ok()) return s;
  auto it = nodes_.find(std::string(name));
  if (it == nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", name));
  Node n = std::move(it->second);
  nodes_.erase(it);
  n.metadata.resource_version = absl::StrCat(NextRv());
  Record(WatchEventType::kDeleted, nullptr, &n);
  return absl::OkStatus();
}

// ---- Watches ----

template <typename T>
absl::Status FakeClient::Watch(int stream, absl::string_view ns, const WatchOptions& options,
                               const WatchHandler<T>& handler, std::stop_token stop) {
  bool stopped = false;
  std::stop_callback on_stop(stop, [&] {
    absl::MutexLock lock(&mu_);
    stopped = true;
  });
  absl::MutexLock lock(&mu_);
  if (auto s = Injected(stream == kPodStream           ? "WatchPods"
                        : stream == kNodeStream        ? "WatchNodes"
                        : stream >= kStorageStreamBase ? "WatchStorageObjects"
                                                       : "WatchSelectorObjects");
      !s.ok()) {
    return s;
  }
  int64_t from = ParseRv(options.resource_version);
  if (from < 0) from = rv_;  // "" or garbage: from now on
  ++open_watches_;
  uint64_t generation = watch_generation_;
  absl::Status result = absl::OkStatus();
  while (true) {
    if (from < compacted_rv_) {
      WatchEvent<T> gone;
      gone.type = WatchEventType::kError;
      ApiStatus st;
      st.status = "Failure";
      st.code = 410;
      st.reason = "Expired";
      st.message = absl::StrCat("too old resource version: ", from, " (", compacted_rv_, ")");
      gone.error = st;
      mu_.Unlock();
      handler(std::move(gone));
      mu_.Lock();
      break;
    }
    // Deliver everything after `from`.
    std::vector<WatchEvent<T>> batch;
    for (const Change& c : history_) {
      if (c.rv <= from) continue;
      from = c.rv;
      if (c.stream != stream) continue;
      WatchEvent<T> ev;
      ev.type = c.type;
      if constexpr (std::is_same_v<T, Pod>) {
        if (!ns.empty() && c.pod.metadata.namespace_name != ns) continue;
        absl::StatusOr<bool> lm =
            MatchesLabelSelector(options.label_selector, c.pod.metadata.labels);
        absl::StatusOr<bool> fm = MatchesPodFieldSelector(options.field_selector, c.pod);
        if (!lm.ok() || !fm.ok()) {
          result = !lm.ok() ? lm.status() : fm.status();
          break;
        }
        if (!*lm || !*fm) continue;
        ev.object = c.pod;
      } else if constexpr (std::is_same_v<T, StorageObject>) {
        absl::StatusOr<bool> lm =
            MatchesLabelSelector(options.label_selector, c.storage.metadata.labels);
        if (!lm.ok()) {
          result = lm.status();
          break;
        }
        if (!*lm) continue;
        ev.object = c.storage;
      } else if constexpr (std::is_same_v<T, SelectorObject>) {
        if (!ns.empty() && c.object.metadata.namespace_name != ns) continue;
        absl::StatusOr<bool> lm =
            MatchesLabelSelector(options.label_selector, c.object.metadata.labels);
        if (!lm.ok()) {
          result = lm.status();
          break;
        }
        if (!*lm) continue;
        ev.object = c.object;
      } else {
        absl::StatusOr<bool> lm =
            MatchesLabelSelector(options.label_selector, c.node.metadata.labels);
        if (!lm.ok()) {
          result = lm.status();
          break;
        }
        if (!*lm) continue;
        ev.object = c.node;
      }
      batch.push_back(std::move(ev));
    }
    if (!result.ok()) break;
    bool keep = true;
    if (!batch.empty()) {
      mu_.Unlock();
      for (auto& ev : batch) {
        if (!handler(std::move(ev))) {
          keep = false;
          break;
        }
      }
      mu_.Lock();
    }
    if (!keep) break;
    using WaitArgs = std::tuple<FakeClient*, int64_t, bool*, uint64_t>;
    WaitArgs args(this, from, &stopped, generation);
    mu_.Await(absl::Condition(
        +[](WaitArgs* a) {
          auto [self, seen_rv, stopped_flag, gen] = *a;
          self->mu_.AssertHeld();
          return *stopped_flag || self->watch_generation_ != gen ||
                 (!self->history_.empty() && self->history_.back().rv > seen_rv) ||
                 self->compacted_rv_ > seen_rv;
        },
        &args));
    if (stopped) {
      result = absl::CancelledError("watch stopped");
      break;
    }
    if (watch_generation_ != generation) {
      result = absl::UnavailableError("watch connection broken (test)");
      break;
    }
  }
  --open_watches_;
  return result;
}

absl::Status FakeClient::WatchPods(absl::string_view ns, const WatchOptions& options,
                                   const WatchHandler<Pod>& handler, std::stop_token stop) {
  return Watch<Pod>(kPodStream, ns, options, handler, stop);
}

absl::Status FakeClient::WatchNodes(const WatchOptions& options, const WatchHandler<Node>& handler,
                                    std::stop_token stop) {
  return Watch<Node>(kNodeStream, "", options, handler, stop);
}

absl::Status FakeClient::WatchSelectorObjects(SelectorResource resource,
                                              const WatchOptions& options,
                                              const WatchHandler<SelectorObject>& handler,
                                              std::stop_token stop) {
  return Watch<SelectorObject>(static_cast<int>(resource), "", options, handler, stop);
}

// ---- Namespaces, services, replication controllers, replica sets, stateful sets ----

absl::StatusOr<SelectorObjectList> FakeClient::ListSelectorObjects(SelectorResource resource,
                                                                   const ListOptions& options) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ListSelectorObjects"); !s.ok()) return s;
  const auto& objects = objects_[static_cast<int>(resource)];
  SelectorObjectList list;
  int64_t list_rv = rv_;
  std::string after;
  if (absl::Status s = ReadContinue(options.continue_token, &list_rv, &after); !s.ok()) return s;
  list.metadata.resource_version = absl::StrCat(list_rv);
  auto it = options.continue_token.empty() ? objects.begin() : objects.upper_bound(after);
  std::string last_key;
  for (; it != objects.end(); ++it) {
    absl::StatusOr<bool> lm =
        MatchesLabelSelector(options.label_selector, it->second.metadata.labels);
    if (!lm.ok()) return lm.status();
    if (!*lm) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.metadata.continue_token = ContinueToken(list_rv, last_key);
      break;
    }
    list.items.push_back(it->second);
    last_key = it->first;
  }
  return list;
}

absl::StatusOr<SelectorObject> FakeClient::ApplySelectorObject(SelectorResource resource,
                                                               const SelectorObject& object) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ApplySelectorObject"); !s.ok()) return s;
  auto& objects = objects_[static_cast<int>(resource)];
  SelectorObject o = object;
  if (!IsNamespaced(resource)) o.metadata.namespace_name.clear();
  const std::string key = NamespacedName(o.metadata);
  auto it = objects.find(key);
  const bool exists = it != objects.end();
  if (exists) {
    o.metadata.uid = it->second.metadata.uid;
    o.metadata.creation_timestamp = it->second.metadata.creation_timestamp;
  } else {
    if (o.metadata.uid.empty()) o.metadata.uid = absl::StrCat("uid-", ++uid_);
    if (!o.metadata.creation_timestamp) o.metadata.creation_timestamp = clock_.Now();
  }
  o.metadata.resource_version = absl::StrCat(NextRv());
  objects[key] = o;
  RecordObject(exists ? WatchEventType::kModified : WatchEventType::kAdded, resource, o);
  return o;
}

absl::Status FakeClient::DeleteSelectorObject(SelectorResource resource, absl::string_view ns,
                                              absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("DeleteSelectorObject"); !s.ok()) return s;
  auto& objects = objects_[static_cast<int>(resource)];
  const std::string key = IsNamespaced(resource) ? absl::StrCat(ns, "/", name) : std::string(name);
  auto it = objects.find(key);
  if (it == objects.end()) {
    return absl::NotFoundError(
        absl::StrCat("delete ", std::string(PluralName(resource)), " ", key));
  }
  SelectorObject o = std::move(it->second);
  objects.erase(it);
  o.metadata.resource_version = absl::StrCat(NextRv());
  RecordObject(WatchEventType::kDeleted, resource, o);
  return absl::OkStatus();
}

// ---- PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes ----

namespace {

std::string StorageKey(StorageResource resource, absl::string_view ns, absl::string_view name) {
  return IsNamespaced(resource) ? absl::StrCat(ns, "/", name) : std::string(name);
}

void SetMetadata(StorageObject& o, const ObjectMeta& meta) {
  o.metadata = meta;
  std::visit([&meta](auto& typed) { typed.metadata = meta; }, o.object);
}

}  // namespace

absl::Status FakeClient::WatchStorageObjects(StorageResource resource, const WatchOptions& options,
                                             const WatchHandler<StorageObject>& handler,
                                             std::stop_token stop) {
  return Watch<StorageObject>(kStorageStreamBase + static_cast<int>(ObjectResource(resource)), "",
                              options, handler, stop);
}

absl::StatusOr<StorageObjectList> FakeClient::ListStorageObjects(StorageResource resource,
                                                                 const ListOptions& options) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ListStorageObjects"); !s.ok()) return s;
  const auto& objects = storage_[static_cast<int>(ObjectResource(resource))];
  StorageObjectList list;
  int64_t list_rv = rv_;
  std::string after;
  if (absl::Status s = ReadContinue(options.continue_token, &list_rv, &after); !s.ok()) return s;
  list.metadata.resource_version = absl::StrCat(list_rv);
  auto it = options.continue_token.empty() ? objects.begin() : objects.upper_bound(after);
  std::string last_key;
  for (; it != objects.end(); ++it) {
    absl::StatusOr<bool> lm =
        MatchesLabelSelector(options.label_selector, it->second.metadata.labels);
    if (!lm.ok()) return lm.status();
    if (!*lm) continue;
    if (options.limit > 0 && static_cast<int64_t>(list.items.size()) == options.limit) {
      list.metadata.continue_token = ContinueToken(list_rv, last_key);
      break;
    }
    list.items.push_back(it->second);
    last_key = it->first;
  }
  return list;
}

absl::StatusOr<StorageObject> FakeClient::ApplyStorageObject(const StorageObject& object) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("ApplyStorageObject"); !s.ok()) return s;
  const StorageResource resource = object.resource();
  auto& objects = storage_[static_cast<int>(ObjectResource(resource))];
  StorageObject o = object;
  ObjectMeta meta = std::visit([](const auto& typed) { return typed.metadata; }, o.object);
  if (!IsNamespaced(resource)) meta.namespace_name.clear();
  const std::string key = StorageKey(resource, meta.namespace_name, meta.name);
  auto it = objects.find(key);
  const bool exists = it != objects.end();
  if (exists) {
    meta.uid = it->second.metadata.uid;
    meta.creation_timestamp = it->second.metadata.creation_timestamp;
  } else {
    if (meta.uid.empty()) meta.uid = absl::StrCat("uid-", ++uid_);
    if (!meta.creation_timestamp) meta.creation_timestamp = clock_.Now();
  }
  meta.resource_version = absl::StrCat(NextRv());
  SetMetadata(o, meta);
  objects[key] = o;
  RecordStorage(exists ? WatchEventType::kModified : WatchEventType::kAdded, o);
  return o;
}

absl::StatusOr<StorageObject> FakeClient::GetStorageObject(StorageResource resource,
                                                           absl::string_view ns,
                                                           absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  const auto& objects = storage_[static_cast<int>(ObjectResource(resource))];
  auto it = objects.find(StorageKey(resource, ns, name));
  if (it == objects.end()) {
    return absl::NotFoundError(
        absl::StrCat(std::string(PluralName(resource)), " \"", name, "\" not found"));
  }
  return it->second;
}

absl::StatusOr<StorageObject> FakeClient::PatchStorageObject(StorageResource resource,
                                                             absl::string_view ns,
                                                             absl::string_view name,
                                                             const StoragePatch& patch) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("PatchStorageObject"); !s.ok()) return s;
  auto& objects = storage_[static_cast<int>(ObjectResource(resource))];
  auto it = objects.find(StorageKey(resource, ns, name));
  if (it == objects.end()) {
    return absl::NotFoundError(
        absl::StrCat("patch ", std::string(PluralName(resource)), " \"", name, "\" not found"));
  }
  StorageObject o = it->second;
  if (!patch.resource_version.empty() && patch.resource_version != o.metadata.resource_version) {
    return absl::AbortedError(absl::StrCat("patch ", std::string(PluralName(resource)), " ", name,
                                           ": the object has been modified"));
  }
  ObjectMeta meta = o.metadata;
  for (const auto& [k, v] : patch.annotations) meta.annotations[k] = v;
  meta.resource_version = absl::StrCat(NextRv());
  if (patch.claim_ref) {
    if (auto* pv = std::get_if<PersistentVolume>(&o.object)) pv->spec.claim_ref = patch.claim_ref;
  }
  SetMetadata(o, meta);
  it->second = o;
  RecordStorage(WatchEventType::kModified, o);
  return o;
}

absl::Status FakeClient::DeleteStorageObject(StorageResource resource, absl::string_view ns,
                                             absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("DeleteStorageObject"); !s.ok()) return s;
  auto& objects = storage_[static_cast<int>(ObjectResource(resource))];
  auto it = objects.find(StorageKey(resource, ns, name));
  if (it == objects.end()) {
    return absl::NotFoundError(
        absl::StrCat("delete ", std::string(PluralName(resource)), " ", name));
  }
  StorageObject o = std::move(it->second);
  objects.erase(it);
  ObjectMeta meta = o.metadata;
  meta.resource_version = absl::StrCat(NextRv());
  SetMetadata(o, meta);
  RecordStorage(WatchEventType::kDeleted, o);
  return absl::OkStatus();
}

// ---- Events and leases ----

absl::Status FakeClient::CreateEvent(const Event& event) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("CreateEvent"); !s.ok()) return s;
  events_.push_back(event);
  return absl::OkStatus();
}

absl::StatusOr<Lease> FakeClient::GetLease(absl::string_view ns, absl::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("GetLease"); !s.ok()) return s;
  auto it = leases_.find(Key(ns, name));
  if (it == leases_.end()) return absl::NotFoundError(absl::StrCat("lease ", ns, "/", name));
  return it->second;
}

absl::StatusOr<Lease> FakeClient::CreateLease(const Lease& lease) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("CreateLease"); !s.ok()) return s;
  std::string key = Key(lease.metadata.namespace_name, lease.metadata.name);
  if (leases_.count(key)) return absl::AlreadyExistsError(absl::StrCat("lease ", key));
  Lease l = lease;
  l.metadata.resource_version = absl::StrCat(NextRv());
  leases_[key] = l;
  return l;
}

absl::StatusOr<Lease> FakeClient::UpdateLease(const Lease& lease) {
  absl::MutexLock lock(&mu_);
  if (auto s = Injected("UpdateLease"); !s.ok()) return s;
  std::string key = Key(lease.metadata.namespace_name, lease.metadata.name);
  auto it = leases_.find(key);
  if (it == leases_.end()) return absl::NotFoundError(absl::StrCat("lease ", key));
  if (it->second.metadata.resource_version != lease.metadata.resource_version) {
    return absl::AbortedError(absl::StrCat("update lease ", key, ": the object has been modified"));
  }
  Lease l = lease;
  l.metadata.resource_version = absl::StrCat(NextRv());
  it->second = l;
  return l;
}

absl::Status FakeClient::Admit(const std::string& method, const CallOptions& options) {
  bool hang = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = hang_.find(method);
    hang = it != hang_.end() && it->second;
    if (hang) ++calls_[method];
  }
  if (!hang) {
    // Answered at once: only a stop requested before the call ends it (the deadline is
    // on the caller's clock, which need not be this fake's).
    return CheckCallOptions({.stop = options.stop}, absl::InfinitePast(), method);
  }
  clock_.SleepUntil(options.deadline, options.stop);
  return CheckCallOptions(options, clock_.Now(), method);
}

void FakeClient::Hang(const std::string& method, bool hang) {
  absl::MutexLock lock(&mu_);
  hang_[method] = hang;
}

absl::Status FakeClient::Bind(const Binding& binding, const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("Bind", options));
  return Bind(binding);
}

absl::Status FakeClient::DeletePod(absl::string_view ns, absl::string_view name,
                                   const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("DeletePod", options));
  return DeletePod(ns, name);
}

absl::Status FakeClient::PatchPodStatus(absl::string_view ns, absl::string_view name,
                                        const PodStatusPatch& patch, const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("PatchPodStatus", options));
  return PatchPodStatus(ns, name, patch);
}

absl::Status FakeClient::PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                             absl::string_view status_patch,
                                             const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("PatchPodGroupStatus", options));
  return Raw("PATCH", PodGroupStatusPath(ns, name), status_patch, "application/merge-patch+json")
      .status();
}

absl::StatusOr<Lease> FakeClient::GetLease(absl::string_view ns, absl::string_view name,
                                           const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("GetLease", options));
  return GetLease(ns, name);
}

absl::StatusOr<Lease> FakeClient::CreateLease(const Lease& lease, const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("CreateLease", options));
  return CreateLease(lease);
}

absl::StatusOr<Lease> FakeClient::UpdateLease(const Lease& lease, const CallOptions& options) {
  TRIMARAN_RETURN_IF_ERROR(Admit("UpdateLease", options));
  return UpdateLease(lease);
}

absl::StatusOr<std::string> FakeClient::Raw(absl::string_view method, absl::string_view path,
                                            absl::string_view body, absl::string_view) {
  std::function<absl::StatusOr<std::string>(absl::string_view, absl::string_view,
                                            absl::string_view)>
      handler;
  {
    absl::MutexLock lock(&mu_);
    if (auto s = Injected("Raw"); !s.ok()) return s;
    handler = raw_handler_;
  }
  if (!handler) return absl::NotFoundError(absl::StrCat(method, " ", path, ": not served"));
  return handler(method, path, body);
}

// ---- Knobs and observers ----

void FakeClient::FailNext(const std::string& method, absl::Status status, int times) {
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < times; ++i) failures_[method].push_back(status);
}

void FakeClient::BreakWatches() {
  absl::MutexLock lock(&mu_);
  ++watch_generation_;
}

void FakeClient::SetHistoryLimit(size_t limit) {
  absl::MutexLock lock(&mu_);
  history_limit_ = limit;
}

void FakeClient::Compact() {
  absl::MutexLock lock(&mu_);
  compacted_rv_ = rv_;
  history_.clear();
}

void FakeClient::SetRawHandler(std::function<absl::StatusOr<std::string>(
                                   absl::string_view, absl::string_view, absl::string_view)>
                                   handler) {
  absl::MutexLock lock(&mu_);
  raw_handler_ = std::move(handler);
}

std::vector<Binding> FakeClient::Bindings() const {
  absl::MutexLock lock(&mu_);
  return bindings_;
}
std::vector<Event> FakeClient::Events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}
std::vector<std::pair<std::string, PodStatusPatch>> FakeClient::StatusPatches() const {
  absl::MutexLock lock(&mu_);
  return patches_;
}
int64_t FakeClient::CurrentResourceVersion() const {
  absl::MutexLock lock(&mu_);
  return rv_;
}
int FakeClient::OpenWatches() const {
  absl::MutexLock lock(&mu_);
  return open_watches_;
}
bool FakeClient::AwaitOpenWatches(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, n] {
    mu_.AssertReaderHeld();
    return open_watches_ == n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}
int FakeClient::Calls(const std::string& method) const {
  absl::MutexLock lock(&mu_);
  auto it = calls_.find(method);
  return it == calls_.end() ? 0 : it->second;
}

}  // namespace trimaran::kube::testing
