#include "scheduler/plugins/helper/default_selector.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/backend/cache/object_store.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::SelectorResource;
using kube::testing::MakePod;

std::shared_ptr<kube::SelectorObject> Obj(std::string ns, std::string name) {
  auto o = std::make_shared<kube::SelectorObject>();
  o->metadata.namespace_name = std::move(ns);
  o->metadata.name = std::move(name);
  return o;
}

std::shared_ptr<kube::SelectorObject> WithMap(std::shared_ptr<kube::SelectorObject> o,
                                              kube::Labels map) {
  o->selector = kube::LabelSelector{.match_labels = std::move(map)};
  return o;
}

kube::LabelSelectorRequirement In(std::string key, std::string value) {
  return {.key = std::move(key), .op = kube::LabelSelectorOperator::kIn, .values = {value}};
}

TEST(DefaultSelectorTest, NothingSelectsThePod) {
  ObjectStore objects;
  objects.Apply(SelectorResource::kServices, WithMap(Obj("default", "db"), {{"app", "db"}}));
  // A service without a selector selects nothing.
  objects.Apply(SelectorResource::kServices, Obj("default", "external"));
  const kube::Pod pod = MakePod().Name("p").Namespace("default").Labels({{"app", "web"}}).Obj();
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(pod, objects)));
}

TEST(DefaultSelectorTest, MatchingServicesOfTheNamespaceMerge) {
  ObjectStore objects;
  objects.Apply(SelectorResource::kServices, WithMap(Obj("default", "a"), {{"app", "web"}}));
  objects.Apply(SelectorResource::kServices,
                WithMap(Obj("default", "b"), {{"app", "web"}, {"tier", "front"}}));
  objects.Apply(SelectorResource::kServices, WithMap(Obj("default", "c"), {{"tier", "back"}}));
  // Same selector, other namespace: ignored.
  objects.Apply(SelectorResource::kServices, WithMap(Obj("other", "d"), {{"zone", "x"}}));
  const kube::Pod pod = MakePod()
                            .Name("p")
                            .Namespace("default")
                            .Labels({{"app", "web"}, {"tier", "front"}, {"zone", "x"}})
                            .Obj();
  const kube::LabelSelector s = DefaultSelector(pod, objects);
  EXPECT_EQ(s.match_labels, (kube::Labels{{"app", "web"}, {"tier", "front"}}));
  EXPECT_TRUE(s.match_expressions.empty());
}

TEST(DefaultSelectorTest, ReplicationControllerMergesItsMap) {
  ObjectStore objects;
  objects.Apply(SelectorResource::kReplicationControllers,
                WithMap(Obj("default", "rc"), {{"rc", "1"}}));
  const kube::Pod pod = MakePod()
                            .Name("p")
                            .Namespace("default")
                            .Labels({{"rc", "1"}})
                            .OwnerReference("ReplicationController", "rc")
                            .Obj();
  EXPECT_EQ(DefaultSelector(pod, objects).match_labels, (kube::Labels{{"rc", "1"}}));
}

TEST(DefaultSelectorTest, ReplicaSetAndStatefulSetAddRequirements) {
  ObjectStore objects;
  objects.Apply(SelectorResource::kServices, WithMap(Obj("default", "svc"), {{"app", "web"}}));
  auto rs = Obj("default", "web-abc");
  rs->selector = kube::LabelSelector{
      .match_labels = {{"app", "web"}},
      .match_expressions = {{.key = "track", .op = kube::LabelSelectorOperator::kExists}}};
  objects.Apply(SelectorResource::kReplicaSets, rs);
  const kube::Pod pod = MakePod()
                            .Name("p")
                            .Namespace("default")
                            .Labels({{"app", "web"}, {"track", "stable"}})
                            .OwnerReference("ReplicaSet", "web-abc")
                            .Obj();
  const kube::LabelSelector s = DefaultSelector(pod, objects);
  EXPECT_EQ(s.match_labels, (kube::Labels{{"app", "web"}}));
  EXPECT_THAT(
      s.match_expressions,
      ::testing::ElementsAre(In("app", "web"),
                             kube::LabelSelectorRequirement{
                                 .key = "track", .op = kube::LabelSelectorOperator::kExists}));

  auto ss = Obj("default", "db");
  ss->selector = kube::LabelSelector{.match_labels = {{"app", "db"}}};
  objects.Apply(SelectorResource::kStatefulSets, ss);
  const kube::Pod db = MakePod()
                           .Name("db-0")
                           .Namespace("default")
                           .Labels({{"app", "db"}})
                           .OwnerReference("StatefulSet", "db")
                           .Obj();
  const kube::LabelSelector d = DefaultSelector(db, objects);
  EXPECT_TRUE(d.match_labels.empty());
  EXPECT_THAT(d.match_expressions, ::testing::ElementsAre(In("app", "db")));
}

TEST(DefaultSelectorTest, UnknownOwnersAndMissingControllersAreIgnored) {
  ObjectStore objects;
  auto rs = Obj("default", "web-abc");
  rs->selector = kube::LabelSelector{.match_labels = {{"app", "web"}}};
  objects.Apply(SelectorResource::kReplicaSets, rs);
  kube::Pod job = MakePod().Name("j").Namespace("default").OwnerReference("Job", "web-abc").Obj();
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(job, objects)));
  kube::Pod missing =
      MakePod().Name("p").Namespace("default").OwnerReference("ReplicaSet", "gone").Obj();
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(missing, objects)));
  // The right name in another namespace is not the owner.
  kube::Pod other =
      MakePod().Name("p").Namespace("other").OwnerReference("ReplicaSet", "web-abc").Obj();
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(other, objects)));
  // A ReplicaSet owner with the wrong group/version.
  kube::Pod old_group = missing;
  old_group.metadata.owner_references[0].api_version = "extensions/v1beta1";
  old_group.metadata.owner_references[0].name = "web-abc";
  EXPECT_TRUE(IsEmptySelector(DefaultSelector(old_group, objects)));
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
