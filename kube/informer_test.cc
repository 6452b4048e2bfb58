#include "kube/informer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

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
using trimaran::testing::StatusIs;

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

// A ListerWatcher whose watches the test scripts, recording when (on the fake clock)
// each list page and each watch was asked for. `watch_fn` is called with the watch's
// ordinal (0, 1, ...); the default ends every watch at once with no event (an empty
// 200).
struct TimedPods {
  explicit TimedPods(const Clock& c) : clock(c) {}

  ListerWatcher<Pod> Lw() {
    ListerWatcher<Pod> lw;
    lw.list = [this](const ListOptions& o) -> absl::StatusOr<List<Pod>> {
      int n;
      {
        absl::MutexLock lock(&mu);
        list_times.push_back(clock.Now());
        list_options.push_back(o);
        n = static_cast<int>(list_times.size()) - 1;
      }
      if (list_fn) return list_fn(n, o);
      List<Pod> list;
      list.metadata.resource_version = "10";
      return list;
    };
    lw.watch = [this](const WatchOptions& o, const WatchHandler<Pod>& h,
                      std::stop_token stop) -> absl::Status {
      int n;
      {
        absl::MutexLock lock(&mu);
        watch_times.push_back(clock.Now());
        watch_versions.push_back(o.resource_version);
        n = static_cast<int>(watch_times.size()) - 1;
      }
      if (watch_fn) return watch_fn(n, h, stop);
      return absl::OkStatus();
    };
    lw.description = "pods";
    return lw;
  }
  std::vector<absl::Time> ListTimes() {
    absl::MutexLock lock(&mu);
    return list_times;
  }
  std::vector<absl::Time> WatchTimes() {
    absl::MutexLock lock(&mu);
    return watch_times;
  }
  // The gaps between consecutive watch starts.
  std::vector<absl::Duration> WatchGaps() {
    std::vector<absl::Time> t = WatchTimes();
    std::vector<absl::Duration> gaps;
    for (size_t i = 1; i < t.size(); ++i) gaps.push_back(t[i] - t[i - 1]);
    return gaps;
  }
  // Waits (real time, at most 10 s) until `n` watches were asked for.
  bool AwaitWatches(size_t n) {
    absl::MutexLock lock(&mu);
    auto reached = [this, n] {
      mu.AssertReaderHeld();
      return watch_times.size() >= n;
    };
    return mu.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(10));
  }

  const Clock& clock;
  std::function<absl::StatusOr<List<Pod>>(int n, const ListOptions&)> list_fn;
  std::function<absl::Status(int n, const WatchHandler<Pod>&, std::stop_token)> watch_fn;
  absl::Mutex mu;
  std::vector<absl::Time> list_times ABSL_GUARDED_BY(mu);
  std::vector<ListOptions> list_options ABSL_GUARDED_BY(mu);
  std::vector<absl::Time> watch_times ABSL_GUARDED_BY(mu);
  std::vector<std::string> watch_versions ABSL_GUARDED_BY(mu);
};

// Blocks until `stop` (a watch that stays open and quiet).
absl::Status BlockUntilStopped(std::stop_token stop) {
  absl::Notification stopped;
  std::stop_callback cb(stop, [&] { stopped.Notify(); });
  stopped.WaitForNotification();
  return absl::CancelledError("stopped");
}

InformerOptions ExactBackoff() {
  InformerOptions o;
  o.backoff_jitter = 0;  // client-go's figures without the random stretch
  return o;
}

// Every watch answers at once with no event (200, empty body): each is a very short
// watch; the informer re-lists and watches again after client-go's backoff (800 ms,
// doubling, capped at 30 s), never sooner than 1 s after the last watch started.
TEST(InformerTest, WatchesThatEndAtOnceAreSpacedByTheBackoffAndRelist) {
  FakeClock clock;
  TimedPods lw(clock);
  Informer<Pod> informer(lw.Lw(), clock, ExactBackoff());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  constexpr int kWatches = 10;
  for (int i = 1; i < kWatches; ++i) {
    ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
    ASSERT_TRUE(lw.AwaitWatches(i + 1)) << i;
  }
  informer.Stop();
  std::vector<absl::Duration> want = {
      absl::Seconds(1),         absl::Milliseconds(1600),  absl::Milliseconds(3200),
      absl::Milliseconds(6400), absl::Milliseconds(12800), absl::Milliseconds(25600),
      absl::Seconds(30),        absl::Seconds(30),         absl::Seconds(30)};
  EXPECT_EQ(lw.WatchGaps(), want) << "the first wait is 800 ms, stretched to the 1 s minimum";
  EXPECT_GE(informer.counters().short_watches.load(), kWatches - 1);
  EXPECT_EQ(informer.counters().watch_errors.load(), 0u) << "an empty 200 is not an error";
  // Each very short watch is followed by a re-list (only a list makes progress then):
  // the first list a consistent paged read, the re-lists from the watch cache
  // (resourceVersion "0", unpaged), taken since they are not older than the last version.
  EXPECT_GE(lw.ListTimes().size(), static_cast<size_t>(kWatches));
  absl::MutexLock lock(&lw.mu);
  EXPECT_EQ(lw.list_options[0].resource_version, "");
  EXPECT_EQ(lw.list_options[0].limit, 500);
  for (size_t i = 1; i < lw.list_options.size(); ++i) {
    EXPECT_EQ(lw.list_options[i].resource_version, "0") << i;
    EXPECT_EQ(lw.list_options[i].limit, 0) << i;
  }
}

// With the jitter (the default), each wait is stretched by [1, 2): still never more
// than one watch a second, and at the cap between 30 and 60 s.
TEST(InformerTest, VeryShortWatchBackoffIsJitteredWithinClientGoBounds) {
  FakeClock clock;
  TimedPods lw(clock);
  Informer<Pod> informer(lw.Lw(), clock);  // the defaults
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  constexpr int kWatches = 10;
  for (int i = 1; i < kWatches; ++i) {
    ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
    ASSERT_TRUE(lw.AwaitWatches(i + 1)) << i;
  }
  informer.Stop();
  std::vector<absl::Duration> gaps = lw.WatchGaps();
  ASSERT_EQ(gaps.size(), static_cast<size_t>(kWatches - 1));
  absl::Duration base = absl::Milliseconds(800);
  for (size_t i = 0; i < gaps.size(); ++i) {
    EXPECT_GE(gaps[i], std::max(base, absl::Seconds(1))) << i;
    EXPECT_LT(gaps[i], 2 * base) << i;
    base = std::min(2 * base, absl::Seconds(30));
  }
}

// A watch that fails at once (connection refused) also waits for the backoff, but
// resumes from the last version without a re-list; a watch that fails after delivering
// an event (a cut connection) resumes at once.
TEST(InformerTest, FailingWatchesBackOffUnlessTheyDeliveredEvents) {
  FakeClock clock;
  TimedPods lw(clock);
  lw.watch_fn = [](int n, const WatchHandler<Pod>& h, std::stop_token stop) -> absl::Status {
    if (n < 3) return absl::UnavailableError("connection refused");
    if (n == 3) {
      WatchEvent<Pod> ev{.type = WatchEventType::kAdded, .object = MakePod().Name("a").Obj()};
      ev.object.metadata.resource_version = "11";
      h(std::move(ev));
      return absl::UnavailableError("connection reset by peer");
    }
    return BlockUntilStopped(stop);
  };
  Informer<Pod> informer(lw.Lw(), clock, ExactBackoff());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(lw.AwaitWatches(5));
  informer.Stop();
  EXPECT_EQ(lw.WatchGaps(),
            (std::vector<absl::Duration>{absl::Seconds(1), absl::Milliseconds(1600),
                                         absl::Milliseconds(3200), absl::ZeroDuration()}));
  EXPECT_EQ(lw.ListTimes().size(), 1u) << "errors resume the watch";
  EXPECT_EQ(informer.counters().watch_errors.load(), 4u);
  EXPECT_EQ(informer.counters().short_watches.load(), 3u);
  absl::MutexLock lock(&lw.mu);
  EXPECT_EQ(lw.watch_versions, (std::vector<std::string>{"10", "10", "10", "10", "11"}));
}

// A re-list takes the watch cache's answer only when it is not older than the last
// version seen: an older cache (a lagging apiserver) is read past with a consistent list.
TEST(InformerTest, RelistFromAnOlderWatchCacheFallsBackToAConsistentRead) {
  FakeClock clock;
  TimedPods lw(clock);
  lw.list_fn = [](int n, const ListOptions&) -> absl::StatusOr<List<Pod>> {
    List<Pod> list;
    list.metadata.resource_version = n == 0 ? "10" : n == 1 ? "5" : "12";
    list.items.push_back(MakePod().Name("a").Namespace("default").Obj());
    list.items.back().metadata.resource_version = list.metadata.resource_version;
    return list;
  };
  lw.watch_fn = [](int n, const WatchHandler<Pod>&, std::stop_token stop) -> absl::Status {
    if (n == 0) return absl::OkStatus();  // an empty 200: re-list
    return BlockUntilStopped(stop);
  };
  Informer<Pod> informer(lw.Lw(), clock, ExactBackoff());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(clock.AdvanceWhenSleeping(1));
  ASSERT_TRUE(lw.AwaitWatches(2));
  informer.Stop();
  absl::MutexLock lock(&lw.mu);
  ASSERT_EQ(lw.list_options.size(), 3u);
  EXPECT_EQ(lw.list_options[1].resource_version, "0") << "the watch cache first";
  EXPECT_EQ(lw.list_options[1].limit, 0);
  EXPECT_EQ(lw.list_options[2].resource_version, "") << "then a consistent read";
  EXPECT_EQ(lw.list_options[2].limit, 500);
  EXPECT_EQ(lw.watch_versions[1], "12");
  ASSERT_NE(informer.store().Get("default/a"), nullptr);
  EXPECT_EQ(informer.store().Get("default/a")->metadata.resource_version, "12");
  EXPECT_EQ(informer.counters().resource_version_regressions.load(), 0u);
}

// List errors back off as client-go's reflector does (800 ms doubling up to 30 s), and
// the backoff starts again from 800 ms when none started for 2 minutes.
TEST(InformerTest, ListErrorsBackOffExponentiallyAndTheBackoffResets) {
  FakeClock clock;
  TimedPods lw(clock);
  absl::Notification release_watch;
  lw.list_fn = [](int n, const ListOptions&) -> absl::StatusOr<List<Pod>> {
    // The first list fails 7 times; the first re-list fails too (from the watch cache,
    // then consistently).
    if (n < 7 || n == 8 || n == 9) return absl::UnavailableError("apiserver down");
    List<Pod> list;
    list.metadata.resource_version = "10";
    return list;
  };
  // The first watch lives 5 minutes (quietly), then ends; the next one ends at once
  // with nothing (a very short watch: the backoff starts over), and its re-list fails
  // once.
  lw.watch_fn = [&](int n, const WatchHandler<Pod>&, std::stop_token stop) -> absl::Status {
    if (n == 0) {
      if (!clock.SleepFor(absl::Minutes(5), stop)) return absl::CancelledError("stopped");
      return absl::OkStatus();
    }
    if (n == 1) return absl::OkStatus();
    return BlockUntilStopped(stop);
  };
  Informer<Pod> informer(lw.Lw(), clock, ExactBackoff());
  informer.Start();
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << i;
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  // The 5-minute watch, the short watch's backoff, the failed re-list's backoff.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(clock.AdvanceWhenSleeping(1)) << "after sync " << i;
  ASSERT_TRUE(lw.AwaitWatches(3));
  informer.Stop();
  std::vector<absl::Time> t = lw.ListTimes();
  ASSERT_EQ(t.size(), 11u);
  std::vector<absl::Duration> gaps;
  for (size_t i = 1; i < 8; ++i) gaps.push_back(t[i] - t[i - 1]);
  EXPECT_EQ(gaps, (std::vector<absl::Duration>{absl::Milliseconds(800), absl::Milliseconds(1600),
                                               absl::Milliseconds(3200), absl::Milliseconds(6400),
                                               absl::Milliseconds(12800), absl::Milliseconds(25600),
                                               absl::Seconds(30)}));
  // 5 minutes after the last backoff, the short watch waits 800 ms (reset, stretched to
  // the 1 s minimum), not 30 s; the failed re-list then 1.6 s.
  EXPECT_EQ(t[8] - t[7], absl::Minutes(5) + absl::Seconds(1));
  EXPECT_EQ(t[9], t[8]) << "the re-list falls back to a consistent read at once";
  EXPECT_EQ(t[10] - t[9], absl::Milliseconds(1600));
  EXPECT_EQ(informer.counters().list_errors.load(), 8u);
}

// etcd is compacted between two pages of the initial list: the continue token expires
// (410), the list starts again from scratch, and the watch starts from the
// resourceVersion of the list that completed, not the abandoned first page's (which is
// compacted: watching from it would 410 and re-list once more).
TEST(InformerTest, ListRestartedAfterAnExpiredContinueTokenWatchesFromTheRestart) {
  FakeClient client;
  for (int i = 0; i < 5; ++i) {
    TRIMARAN_ASSERT_OK(client.CreatePod(MakePod().Name(absl::StrCat("p", i)).Obj()).status());
  }
  const std::string first_rv = absl::StrCat(client.CurrentResourceVersion());
  ListerWatcher<Pod> lw = PodListerWatcher(client);
  bool changed = false;  // the reflector thread only
  lw.list = [&](const ListOptions& o) -> absl::StatusOr<List<Pod>> {
    if (!o.continue_token.empty() && !changed) {
      changed = true;
      Pod p0 = *client.GetPod("default", "p0");
      p0.metadata.labels["v"] = "2";
      if (absl::Status s = client.UpdatePod(p0).status(); !s.ok()) return s;
      if (absl::Status s = client.DeletePod("default", "p4"); !s.ok()) return s;
      if (absl::Status s = client.CreatePod(MakePod().Name("p9").Obj()).status(); !s.ok()) {
        return s;
      }
      client.Compact();
    }
    return client.ListPods("", o);
  };
  FakeClock clock;
  Informer<Pod> informer(std::move(lw), clock, FastOptions());  // pages of 2
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  const std::string restart_rv = absl::StrCat(client.CurrentResourceVersion());
  ASSERT_NE(restart_rv, first_rv);
  EXPECT_EQ(informer.LastSyncResourceVersion(), restart_rv);
  EXPECT_EQ(informer.counters().list_restarts.load(), 1u);
  EXPECT_EQ(informer.counters().lists.load(), 1u);
  EXPECT_EQ(informer.counters().relists_gone.load(), 0u) << "the watch started from a live RV";
  // Handlers saw the completed list only: no p4, p0 with its new label.
  std::vector<std::string> calls = rec.Calls();
  std::sort(calls.begin(), calls.end());
  EXPECT_THAT(calls, ::testing::ElementsAre("add p0", "add p1", "add p2", "add p3", "add p9"));
  EXPECT_EQ(informer.store().Get("default/p0")->metadata.labels.at("v"), "2");
  // The store equals a fresh list, resourceVersions included; a change after the
  // restart arrives through the watch.
  TRIMARAN_ASSERT_OK(client.DeletePod("default", "p1"));
  ASSERT_TRUE(rec.AwaitCalls(6));
  informer.Stop();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(PodList fresh, client.ListPods("", {}));
  std::map<std::string, std::string> want;
  for (const Pod& p : fresh.items) want[ObjectKey(p)] = p.metadata.resource_version;
  std::map<std::string, std::string> got;
  for (const std::string& key : informer.store().Keys()) {
    got[key] = informer.store().Get(key)->metadata.resource_version;
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(informer.counters().resource_version_regressions.load(), 0u);
}

// An event that carries an older resourceVersion than the stored object is counted (a
// debug check; the apiserver never sends one).
TEST(InformerTest, CountsObjectsGoingBackToAnOlderResourceVersion) {
  FakeClock clock;
  TimedPods lw(clock);
  lw.list_fn = [](int, const ListOptions&) -> absl::StatusOr<List<Pod>> {
    List<Pod> list;
    list.metadata.resource_version = "20";
    list.items.push_back(MakePod().Name("a").Obj());
    list.items.back().metadata.resource_version = "20";
    return list;
  };
  lw.watch_fn = [](int, const WatchHandler<Pod>& h, std::stop_token stop) -> absl::Status {
    for (const char* rv : {"21", "15", "22"}) {
      WatchEvent<Pod> ev{.type = WatchEventType::kModified, .object = MakePod().Name("a").Obj()};
      ev.object.metadata.resource_version = rv;
      h(std::move(ev));
    }
    return BlockUntilStopped(stop);
  };
  Informer<Pod> informer(lw.Lw(), clock);
  Recorder rec;
  informer.AddEventHandlers(rec.Handlers());
  informer.Start();
  ASSERT_TRUE(rec.AwaitCalls(4));
  informer.Stop();
  EXPECT_EQ(informer.counters().resource_version_regressions.load(), 1u) << "21 -> 15";
}

// The SelectorObject informer over the fake: list, then watch adds, updates and deletes
// of one resource only.
TEST(InformerTest, FollowsSelectorObjectsOfOneResource) {
  FakeClient client;
  SelectorObject svc;
  svc.metadata.namespace_name = "default";
  svc.metadata.name = "web";
  svc.selector = LabelSelector{.match_labels = {{"app", "web"}}};
  TRIMARAN_ASSERT_OK(client.ApplySelectorObject(SelectorResource::kServices, svc).status());
  SelectorObject rs = svc;
  rs.metadata.name = "web-abc";
  TRIMARAN_ASSERT_OK(client.ApplySelectorObject(SelectorResource::kReplicaSets, rs).status());

  FakeClock clock;
  Informer<SelectorObject> informer(
      SelectorObjectListerWatcher(client, SelectorResource::kServices), clock, FastOptions());
  std::vector<std::string> calls;
  absl::Mutex mu;
  informer.AddEventHandlers(EventHandlers<SelectorObject>{
      .on_add =
          [&](const std::shared_ptr<const SelectorObject>& o) {
            absl::MutexLock lock(&mu);
            calls.push_back("add " + o->metadata.name);
          },
      .on_update =
          [&](const std::shared_ptr<const SelectorObject>&,
              const std::shared_ptr<const SelectorObject>& o) {
            absl::MutexLock lock(&mu);
            calls.push_back("update " + o->metadata.name + " " +
                            o->selector->match_labels.at("app"));
          },
      .on_delete =
          [&](const std::shared_ptr<const SelectorObject>& o, bool) {
            absl::MutexLock lock(&mu);
            calls.push_back("delete " + o->metadata.name);
          },
  });
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));
  svc.selector->match_labels["app"] = "web2";
  TRIMARAN_ASSERT_OK(client.ApplySelectorObject(SelectorResource::kServices, svc).status());
  rs.metadata.name = "other-rs";  // another resource: not seen
  TRIMARAN_ASSERT_OK(client.ApplySelectorObject(SelectorResource::kReplicaSets, rs).status());
  TRIMARAN_ASSERT_OK(client.DeleteSelectorObject(SelectorResource::kServices, "default", "web"));
  auto three = [&] {
    absl::MutexLock lock(&mu);
    return calls.size() >= 3;
  };
  for (int i = 0; i < 1000 && !three(); ++i) absl::SleepFor(absl::Milliseconds(10));
  informer.Stop();
  absl::MutexLock lock(&mu);
  EXPECT_THAT(calls, ::testing::ElementsAre("add web", "update web web2", "delete web"));
  EXPECT_EQ(informer.store().Size(), 0u);
  EXPECT_THAT(client.DeleteSelectorObject(SelectorResource::kServices, "default", "web"),
              StatusIs(absl::StatusCode::kNotFound));
}

// A 1.20 apiserver answers policy/v1 with 404: the lister falls back to policy/v1beta1
// for good (the watch follows); a server that serves policy/v1 is read there.
TEST(DisruptionBudgetListerWatcherTest, FallsBackToV1beta1OnNotFound) {
  FakeClient client;
  SelectorObject old_pdb;
  old_pdb.metadata.namespace_name = "default";
  old_pdb.metadata.name = "v1beta1-pdb";
  old_pdb.disruptions_allowed = 2;
  TRIMARAN_ASSERT_OK(
      client.ApplySelectorObject(SelectorResource::kPodDisruptionBudgetsV1beta1, old_pdb).status());
  SelectorObject new_pdb = old_pdb;
  new_pdb.metadata.name = "v1-pdb";
  TRIMARAN_ASSERT_OK(
      client.ApplySelectorObject(SelectorResource::kPodDisruptionBudgets, new_pdb).status());

  ListerWatcher<SelectorObject> served = DisruptionBudgetListerWatcher(client);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SelectorObjectList v1, served.list({}));
  ASSERT_EQ(v1.items.size(), 1u);
  EXPECT_EQ(v1.items[0].metadata.name, "v1-pdb");

  ListerWatcher<SelectorObject> old_server = DisruptionBudgetListerWatcher(client);
  client.FailNext("ListSelectorObjects", absl::NotFoundError("the server could not find it"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SelectorObjectList beta, old_server.list({}));
  ASSERT_EQ(beta.items.size(), 1u);
  EXPECT_EQ(beta.items[0].metadata.name, "v1beta1-pdb");
  EXPECT_EQ(beta.items[0].disruptions_allowed, 2);
  // Later lists stay on v1beta1.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(beta, old_server.list({}));
  EXPECT_EQ(beta.items[0].metadata.name, "v1beta1-pdb");
  // Another error is returned as is, without switching.
  ListerWatcher<SelectorObject> flaky = DisruptionBudgetListerWatcher(client);
  client.FailNext("ListSelectorObjects", absl::UnavailableError("down"));
  EXPECT_THAT(flaky.list({}).status(), StatusIs(absl::StatusCode::kUnavailable));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(v1, flaky.list({}));
  EXPECT_EQ(v1.items[0].metadata.name, "v1-pdb");
}

// CSIStorageCapacity: v1, else v1beta1, else (a 1.20 apiserver) not served: logged and
// reported once, empty lists without calling the server again, a watch that only waits
// for its stop.
TEST(StorageCapacityListerWatcherTest, FallsBackThenGivesUpQuietly) {
  FakeClient client;
  CSIStorageCapacity cap;
  cap.metadata.namespace_name = "kube-system";
  cap.metadata.name = "c1";
  cap.storage_class_name = "wait";
  TRIMARAN_ASSERT_OK(client.ApplyStorageObject(StorageObject::Make(cap)).status());

  int not_served = 0;
  ListerWatcher<StorageObject> served =
      StorageCapacityListerWatcher(client, [&not_served] { ++not_served; });
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObjectList v1, served.list({}));
  ASSERT_EQ(v1.items.size(), 1u);

  ListerWatcher<StorageObject> beta =
      StorageCapacityListerWatcher(client, [&not_served] { ++not_served; });
  client.FailNext("ListStorageObjects", absl::NotFoundError("404"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObjectList b, beta.list({}));
  ASSERT_EQ(b.items.size(), 1u);
  EXPECT_EQ(not_served, 0);

  ListerWatcher<StorageObject> old_server =
      StorageCapacityListerWatcher(client, [&not_served] { ++not_served; });
  client.FailNext("ListStorageObjects", absl::NotFoundError("404"), 2);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObjectList none, old_server.list({}));
  EXPECT_TRUE(none.items.empty());
  EXPECT_EQ(not_served, 1);
  // Later lists do not reach the server (an injected failure stays unused).
  client.FailNext("ListStorageObjects", absl::UnavailableError("would be seen"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(none, old_server.list({}));
  EXPECT_TRUE(none.items.empty());
  EXPECT_EQ(not_served, 1);
  // ... as the next call that does shows.
  EXPECT_THAT(served.list({}).status(), StatusIs(absl::StatusCode::kUnavailable));
  // The watch waits for its stop.
  std::stop_source stop;
  absl::Status watched;
  std::thread watcher([&] {
    watched = old_server.watch(
        {}, [](WatchEvent<StorageObject>&&) { return true; }, stop.get_token());
  });
  stop.request_stop();
  watcher.join();
  TRIMARAN_EXPECT_OK(watched);

  // Another error is returned as is, without giving up.
  ListerWatcher<StorageObject> flaky = StorageCapacityListerWatcher(client, nullptr);
  client.FailNext("ListStorageObjects", absl::PermissionDeniedError("forbidden"));
  EXPECT_THAT(flaky.list({}).status(), StatusIs(absl::StatusCode::kPermissionDenied));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(v1, flaky.list({}));
  EXPECT_EQ(v1.items.size(), 1u);
}

// The StorageObject informers over the fake: claims of one resource only, the patch the
// volume binder sends (annotations merged, conditional on the resourceVersion).
TEST(InformerTest, FollowsStorageObjectsAndPatches) {
  FakeClient client;
  PersistentVolumeClaim claim;
  claim.metadata.namespace_name = "default";
  claim.metadata.name = "data";
  claim.spec.storage_class_name = "wait";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObject stored,
                                client.ApplyStorageObject(StorageObject::Make(claim)));
  PersistentVolume pv;
  pv.metadata.name = "pv-1";
  TRIMARAN_ASSERT_OK(client.ApplyStorageObject(StorageObject::Make(pv)).status());

  FakeClock clock;
  Informer<StorageObject> informer(
      StorageObjectListerWatcher(client, StorageResource::kPersistentVolumeClaims), clock,
      FastOptions());
  std::vector<std::string> calls;
  absl::Mutex mu;
  auto describe = [](const StorageObject& o) {
    const auto& c = std::get<PersistentVolumeClaim>(o.object);
    auto it = c.metadata.annotations.find(std::string(kAnnSelectedNode));
    return absl::StrCat(o.metadata.namespace_name, "/", o.metadata.name,
                        it == c.metadata.annotations.end() ? "" : " on " + it->second);
  };
  informer.AddEventHandlers(EventHandlers<StorageObject>{
      .on_add =
          [&](const std::shared_ptr<const StorageObject>& o) {
            absl::MutexLock lock(&mu);
            calls.push_back("add " + describe(*o));
          },
      .on_update =
          [&](const std::shared_ptr<const StorageObject>&,
              const std::shared_ptr<const StorageObject>& o) {
            absl::MutexLock lock(&mu);
            calls.push_back("update " + describe(*o));
          },
      .on_delete =
          [&](const std::shared_ptr<const StorageObject>& o, bool) {
            absl::MutexLock lock(&mu);
            calls.push_back("delete " + o->metadata.name);
          },
  });
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(absl::Seconds(10)));
  ASSERT_TRUE(client.AwaitOpenWatches(1));

  StoragePatch stale{.resource_version = "1"};
  stale.annotations[std::string(kAnnSelectedNode)] = "n0";
  EXPECT_THAT(
      client.PatchStorageObject(StorageResource::kPersistentVolumeClaims, "default", "data", stale)
          .status(),
      StatusIs(absl::StatusCode::kAborted));
  StoragePatch patch{.resource_version = stored.metadata.resource_version};
  patch.annotations[std::string(kAnnSelectedNode)] = "n1";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(StorageObject patched,
                                client.PatchStorageObject(StorageResource::kPersistentVolumeClaims,
                                                          "default", "data", patch));
  EXPECT_EQ(std::get<PersistentVolumeClaim>(patched.object).spec.storage_class_name, "wait");
  pv.metadata.name = "pv-2";  // another resource: not seen
  TRIMARAN_ASSERT_OK(client.ApplyStorageObject(StorageObject::Make(pv)).status());
  TRIMARAN_ASSERT_OK(
      client.DeleteStorageObject(StorageResource::kPersistentVolumeClaims, "default", "data"));
  auto three = [&] {
    absl::MutexLock lock(&mu);
    return calls.size() >= 3;
  };
  for (int i = 0; i < 1000 && !three(); ++i) absl::SleepFor(absl::Milliseconds(10));
  informer.Stop();
  absl::MutexLock lock(&mu);
  EXPECT_THAT(calls, ::testing::ElementsAre("add default/data", "update default/data on n1",
                                            "delete data"));
  EXPECT_EQ(informer.store().Size(), 0u);
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
