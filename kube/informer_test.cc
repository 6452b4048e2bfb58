#include "kube/informer.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/synchronization/notification.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using kube::testing::FakeClient;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using trimaran::testing::FakeClock;
using trimaran::testing::FakeClockDriver;

// Records handler calls as strings, thread-safely.
struct Recorder {
  EventHandlers<Pod> Handlers() {
    EventHandlers<Pod> h;
    h.on_add = [this](const std::shared_ptr<const Pod>& p) { Add("add " + p->metadata.name); };
    h.on_update = [this](const std::shared_ptr<const Pod>&, const std::shared_ptr<const Pod>& p) {
      Add("update " + p->metadata.name);
    };
    h.on_delete = [this](const std::shared_ptr<const Pod>& p, bool unknown) {
      Add((unknown ? "tombstone " : "delete ") + p->metadata.name);
    };
    return h;
  }
  void Add(std::string s) {
    absl::MutexLock lock(&mu);
    calls.push_back(std::move(s));
  }
  std::vector<std::string> Calls() {
    absl::MutexLock lock(&mu);
    return calls;
  }
  // Waits (real time, at most 10 s) until exactly `n` calls were recorded.
  bool AwaitCalls(size_t n) {
    absl::MutexLock lock(&mu);
    auto reached = [this, n] {
      mu.AssertReaderHeld();
      return calls.size() == n;
    };
    return mu.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }
  absl::Mutex mu;
  std::vector<std::string> calls;
};

InformerOptions FastOptions() {
  InformerOptions o;
  o.page_size = 2;  // exercise paging
  o.min_backoff = absl::Milliseconds(50);
  o.max_backoff = absl::Milliseconds(100);
  return o;
}

TEST(InformerTest, ListsInPagesSyncsAndFollowsEventsInOrder) {
  FakeClient client;
  for (int i = 0; i < 5; ++i) {
    TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name(absl::StrCat("p", i)).Obj()).status());
  }
  // A terminal pod is not listed (the non-terminal field selector).
  Pod done = MakePod().Name("done").Obj();
  done.status.phase = PodPhase::kSucceeded;
  TRIMARAN_ASSERT_OK(client.CreatePod(done).status());

  FakeClock clock;  // nothing here waits on it
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  informer.store().AddIndex(kPodsByNodeIndex, PodNodeIndexFunc);
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  EXPECT_EQ(informer.store().Size(), 5u);
  EXPECT_EQ(rec.Calls().size(), 5u);
  EXPECT_GE(client.Calls("ListPods"), 3) << "5 pods in pages of 2";

  ASSERT_TRUE(client.AwaitOpenWatches(1));
  Pod p0 = *client.GetPod("default", "p0");
  p0.spec.node_name = "n1";
  TRIMARAN_ASSERT_OK(client.UpdatePod(p0).status());
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "p1"));
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("p9").Obj()).status());
  ASSERT_TRUE(rec.AwaitCalls(8));
  std::vector<std::string> calls = rec.Calls();
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 5, calls.end()),
              ::testing::ElementsAre("update p0", "delete p1", "add p9"));
  auto on_n1 = informer.store().ByIndex(kPodsByNodeIndex, "n1");
  ASSERT_EQ(on_n1.size(), 1u);
  EXPECT_EQ(on_n1[0]->metadata.name, "p0");
  // Stopping joins the reflector thread, which sets the resume point right after the
  // handlers of the last event ran.
  informer.Stop();
  EXPECT_EQ(informer.LastSyncResourceVersion(), absl::StrCat(client.CurrentResourceVersion()));
  EXPECT_EQ(client.OpenWatches(), 0);
}

TEST(InformerTest, ReconnectsAfterACutWatchWithoutLosingOrDuplicating) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("a").Obj()).status());
  FakeClock clock;
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  client.BreakWatches();
  client.FailNext("WatchPods", absl::UnavailableError("connection refused"), 2);
  // Changes while disconnected are replayed from the last resourceVersion.
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("b").Obj()).status());
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "a"));
  // Three backoffs (the cut, two refused reconnects), each ended on the fake clock.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(rec.AwaitCalls(3));
  EXPECT_THAT(rec.Calls(), ::testing::ElementsAre("add a", "add b", "delete a"));
  EXPECT_GE(informer.counters().watch_errors.load(), 3u);
  EXPECT_EQ(informer.counters().lists.load(), 1u) << "no re-list needed";
  EXPECT_EQ(informer.store().Keys(), std::vector<std::string>{"default/b"});
}

TEST(InformerTest, GoneTriggersRelistAndReportsMissedDeletesAsTombstones) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("a").Obj()).status());
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("b").Obj()).status());
  FakeClock clock;
  Informer<Pod> informer(PodListerWatcher(client), clock, FastOptions());
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  client.BreakWatches();
  client.FailNext("WatchPods", absl::UnavailableError("connection refused"), 1);
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "a"));
  Pod b = *client.GetPod("default", "b");
  b.metadata.labels["v"] = "2";
  TRIMARAN_ASSERT_OK(client.UpdatePod(b).status());
  TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name("c").Obj()).status());
  client.Compact();  // the missed events are gone: the watch gets 410
  // Two backoffs (the cut, one refused reconnect), each ended on the fake clock.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(rec.AwaitCalls(5));
  std::vector<std::string> calls = rec.Calls();
  std::set<std::string> after(calls.begin() + 2, calls.end());
  EXPECT_EQ(after, (std::set<std::string>{"tombstone a", "update b", "add c"}));
  EXPECT_EQ(informer.counters().relists_gone.load(), 1u);
  EXPECT_EQ(informer.counters().lists.load(), 2u);
  // The store equals a fresh list.
  auto fresh = *client.ListPods("", {});
  std::vector<std::string> fresh_keys;
  for (auto& p : fresh.items) fresh_keys.push_back(ObjectKey(p));
  auto keys = informer.store().Keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, fresh_keys);
  EXPECT_EQ(informer.store().Get("default/b")->metadata.labels.at("v"), "2");
}

TEST(InformerTest, ListErrorsAreRetried) {
  FakeClient client;
  TRIMARAN_ASSERT_OK(client.CreateNode(MakeNode().Name("n1").Obj()).status());
  client.FailNext("ListNodes", absl::UnavailableError("apiserver starting"), 2);
  FakeClock clock;
  FakeClockDriver driver(clock);  // ends each list backoff at once
  Informer<Node> informer(NodeListerWatcher(client), clock, FastOptions());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  EXPECT_EQ(informer.counters().list_errors.load(), 2u);
  EXPECT_NE(informer.store().Get("n1"), nullptr);
}

// A ListerWatcher that answers from a script: each List call takes the next list (the
// last one repeats), each Watch call delivers the next batch of events and ends; once
// the batches run out a watch stays open until stopped.
struct ScriptedPods {
  ListerWatcher<Pod> Make() {
    ListerWatcher<Pod> lw;
    lw.description = "pods";
    lw.list = [this](const ListOptions&) -> absl::StatusOr<PodList> {
      absl::MutexLock lock(&mu);
      const size_t i = std::min(list_calls++, lists.size() - 1);
      return lists[i];
    };
    lw.watch = [this](const WatchOptions& o, const WatchHandler<Pod>& handler,
                      std::stop_token stop) -> absl::Status {
      std::vector<WatchEvent<Pod>> events;
      bool hold = false;
      {
        absl::MutexLock lock(&mu);
        watch_versions.push_back(o.resource_version);
        if (watch_calls < watches.size()) {
          events = watches[watch_calls];
        } else {
          hold = true;
        }
        ++watch_calls;
      }
      if (hold) {
        while (!stop.stop_requested()) absl::SleepFor(absl::Milliseconds(1));
        return absl::CancelledError("stopped");
      }
      for (WatchEvent<Pod>& ev : events) {
        if (!handler(std::move(ev))) break;
      }
      return absl::OkStatus();
    };
    return lw;
  }
  std::vector<std::string> WatchVersions() {
    absl::MutexLock lock(&mu);
    return watch_versions;
  }

  absl::Mutex mu;
  std::vector<PodList> lists;
  std::vector<std::vector<WatchEvent<Pod>>> watches;
  size_t list_calls = 0;
  size_t watch_calls = 0;
  std::vector<std::string> watch_versions;
};

Pod PodAt(const std::string& name, const std::string& rv) {
  Pod p = MakePod().Name(name).Namespace("default").Obj();
  p.metadata.resource_version = rv;
  return p;
}

DecodeFailure Failure(const std::string& name, const std::string& rv) {
  DecodeFailure f;
  f.namespace_name = name.empty() ? "" : "default";
  f.name = name;
  f.resource_version = rv;
  f.status = absl::InvalidArgumentError("object.spec.nodeName: expected string, got number");
  return f;
}

// What the codec delivers for an event whose object does not decode.
WatchEvent<Pod> Undecodable(WatchEventType type, const std::string& name, const std::string& rv) {
  WatchEvent<Pod> ev;
  ev.type = type;
  ev.undecodable = Failure(name, rv);
  ev.object.metadata.name = name;
  ev.object.metadata.namespace_name = ev.undecodable->namespace_name;
  ev.object.metadata.resource_version = rv;
  return ev;
}

// One bad object never stops the informer: skipped in a list (absent from the store),
// skipped in a watch (the resume point moves past it, a MODIFIED keeps the last good
// copy, a DELETED still deletes), counted each time, and never retried.
TEST(InformerTest, SkipsObjectsThatDoNotDecodeCountsThemAndMovesOn) {
  ScriptedPods script;
  PodList first;
  first.metadata.resource_version = "10";
  first.items = {PodAt("a", "5"), PodAt("b", "6")};
  DecodeFailure bad = Failure("bad", "7");
  bad.position = "items[1]";
  first.skipped = {bad};
  // After the 410 below: "a" no longer decodes, so it is absent from the new list.
  PodList second;
  second.metadata.resource_version = "20";
  second.items = {PodAt("c", "12")};
  second.skipped = {Failure("a", "15")};
  script.lists = {first, second};
  WatchEvent<Pod> add_c{.type = WatchEventType::kAdded, .object = PodAt("c", "12")};
  WatchEvent<Pod> gone{.type = WatchEventType::kError, .error = ApiStatus{}};
  gone.error->code = 410;
  WatchEvent<Pod> line;  // a line that is not an event: nothing readable
  line.type = WatchEventType::kModified;
  line.undecodable = Failure("", "");
  line.undecodable->position = "watch line of 6 bytes";
  script.watches = {
      {Undecodable(WatchEventType::kModified, "a", "11"), add_c, line,
       Undecodable(WatchEventType::kDeleted, "b", "13"),
       Undecodable(WatchEventType::kModified, "a", "14")},
      // Resumes from 14, past the skipped events.
      {gone},
  };

  FakeClock clock;  // nothing here sleeps: no watch fails
  Informer<Pod> informer(script.Make(), clock, FastOptions());
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(rec.AwaitCalls(5));
  // The list after the 410 is done once its watch opens.
  for (int i = 0; i < 10000 && script.WatchVersions().size() < 3; ++i) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_THAT(rec.Calls(),
              ::testing::ElementsAre("add a", "add b", "add c", "tombstone b", "tombstone a"));
  EXPECT_THAT(script.WatchVersions(), ::testing::ElementsAre("10", "14", "20"));
  EXPECT_EQ(informer.store().Keys(), std::vector<std::string>{"default/c"});
  EXPECT_EQ(informer.counters().decode_errors.load(), 6u)
      << "1 list item, 4 watch events, 1 list item after the re-list";
  EXPECT_EQ(informer.counters().watch_errors.load(), 0u);
  EXPECT_EQ(informer.counters().lists.load(), 2u);
  informer.Stop();
}

// Between the skipped MODIFIED and the next good event the store keeps the last good
// copy; an ERROR whose Status does not decode re-lists like any ERROR.
TEST(InformerTest, KeepsTheLastGoodCopyAndRelistsOnAnUndecodableError) {
  ScriptedPods script;
  PodList list;
  list.metadata.resource_version = "10";
  list.items = {PodAt("a", "5")};
  script.lists = {list};
  script.watches = {{Undecodable(WatchEventType::kModified, "a", "11")},
                    {Undecodable(WatchEventType::kError, "", "")}};
  FakeClock clock;
  Informer<Pod> informer(script.Make(), clock, FastOptions());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  for (int i = 0; i < 10000 && script.WatchVersions().size() < 3; ++i) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_THAT(script.WatchVersions(), ::testing::ElementsAre("10", "11", "10"));
  auto a = informer.store().Get("default/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->metadata.resource_version, "5") << "the last good copy";
  EXPECT_EQ(informer.counters().decode_errors.load(), 2u);
  EXPECT_EQ(informer.counters().relists_gone.load(), 1u);
  EXPECT_EQ(informer.counters().lists.load(), 2u);
  informer.Stop();
}

TEST(StoreTest, IndexFollowsUpdatesAndRemovals) {
  Store<Pod> store;
  store.AddIndex(kPodsByNodeIndex, PodNodeIndexFunc);
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("a").Namespace("default").NodeName("n1").Obj()));
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("b").Namespace("default").NodeName("n1").Obj()));
  store.Upsert(std::make_shared<const Pod>(MakePod().Name("c").Namespace("default").Obj()));
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n1").size(), 2u);
  store.Upsert(
      std::make_shared<const Pod>(MakePod().Name("a").Namespace("default").NodeName("n2").Obj()));
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n1").size(), 1u);
  EXPECT_EQ(store.ByIndex(kPodsByNodeIndex, "n2").size(), 1u);
  EXPECT_NE(store.Remove("default/b"), nullptr);
  EXPECT_TRUE(store.ByIndex(kPodsByNodeIndex, "n1").empty());
  EXPECT_EQ(store.Remove("default/b"), nullptr);
  EXPECT_EQ(store.Size(), 2u);
}

}  // namespace
}  // namespace trimaran::kube
