#include "scheduler/backend/cache/object_store.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

using kube::SelectorResource;

std::shared_ptr<const kube::SelectorObject> Obj(std::string ns, std::string name,
                                                kube::Labels selector = {}) {
  auto o = std::make_shared<kube::SelectorObject>();
  o->metadata.namespace_name = std::move(ns);
  o->metadata.name = std::move(name);
  if (!selector.empty()) o->selector = kube::LabelSelector{.match_labels = std::move(selector)};
  return o;
}

std::vector<std::string> Names(const std::vector<std::shared_ptr<const kube::SelectorObject>>& v) {
  std::vector<std::string> out;
  for (const auto& o : v) out.push_back(o->metadata.name);
  return out;
}

TEST(ObjectStoreTest, ListsPerNamespaceInNameOrder) {
  ObjectStore store;
  store.Apply(SelectorResource::kServices, Obj("a", "web", {{"app", "web"}}));
  store.Apply(SelectorResource::kServices, Obj("a", "db"));
  store.Apply(SelectorResource::kServices, Obj("b", "web"));
  store.Apply(SelectorResource::kReplicaSets, Obj("a", "rs"));
  EXPECT_THAT(Names(store.List(SelectorResource::kServices, "a")),
              ::testing::ElementsAre("db", "web"));
  EXPECT_THAT(Names(store.List(SelectorResource::kServices, "b")), ::testing::ElementsAre("web"));
  EXPECT_THAT(Names(store.List(SelectorResource::kServices, "c")), ::testing::IsEmpty());
  EXPECT_THAT(Names(store.List(SelectorResource::kReplicaSets, "a")), ::testing::ElementsAre("rs"));
  EXPECT_EQ(store.Size(SelectorResource::kServices), 3u);
  ASSERT_NE(store.Get(SelectorResource::kServices, "a", "web"), nullptr);
  EXPECT_EQ(store.Get(SelectorResource::kServices, "a", "web")->selector->match_labels.at("app"),
            "web");
  EXPECT_EQ(store.Get(SelectorResource::kServices, "b", "db"), nullptr);
  EXPECT_EQ(store.Get(SelectorResource::kStatefulSets, "a", "web"), nullptr);
}

TEST(ObjectStoreTest, ApplyReplacesAndRemoveDeletes) {
  ObjectStore store;
  store.Apply(SelectorResource::kServices, Obj("a", "web", {{"app", "v1"}}));
  store.Apply(SelectorResource::kServices, Obj("a", "web", {{"app", "v2"}}));
  EXPECT_EQ(store.Size(SelectorResource::kServices), 1u);
  EXPECT_EQ(store.Get(SelectorResource::kServices, "a", "web")->selector->match_labels.at("app"),
            "v2");
  store.Remove(SelectorResource::kServices, *Obj("a", "web"));
  EXPECT_EQ(store.Get(SelectorResource::kServices, "a", "web"), nullptr);
  EXPECT_EQ(store.Size(SelectorResource::kServices), 0u);
  store.Remove(SelectorResource::kServices, *Obj("a", "web"));  // absent: no-op
  EXPECT_EQ(store.Size(SelectorResource::kServices), 0u);
}

TEST(ObjectStoreTest, NamespacesAreClusterScoped) {
  ObjectStore store;
  auto ns = std::make_shared<kube::SelectorObject>();
  ns->metadata.name = "team-a";
  ns->metadata.labels = {{"team", "a"}};
  store.Apply(SelectorResource::kNamespaces, ns);
  store.Apply(SelectorResource::kNamespaces, Obj("", "team-b"));
  // The namespace argument does not matter for a cluster-scoped resource.
  ASSERT_NE(store.Get(SelectorResource::kNamespaces, "whatever", "team-a"), nullptr);
  EXPECT_EQ(store.Get(SelectorResource::kNamespaces, "", "team-a")->metadata.labels.at("team"),
            "a");
  EXPECT_THAT(Names(store.List(SelectorResource::kNamespaces, "")),
              ::testing::ElementsAre("team-a", "team-b"));
  EXPECT_THAT(Names(store.List(SelectorResource::kNamespaces, "x")),
              ::testing::ElementsAre("team-a", "team-b"));
}

}  // namespace
}  // namespace trimaran::sched
