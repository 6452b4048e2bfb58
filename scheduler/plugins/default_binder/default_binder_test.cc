#include "scheduler/plugins/default_binder/default_binder.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/binding.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakePod;
using ::testing::HasSubstr;

TEST(DefaultBinderTest, Bind) {
  struct Case {
    std::string name;
    // Error injected into the client's next Bind (OK = none).
    absl::Status inject;
    bool create_pod;
    Code want_code;
    std::string want_message;  // substring of the Status message
  };
  const Case cases[] = {
      {"binds", absl::OkStatus(), true, Code::kSuccess, ""},
      {"client error", absl::UnavailableError("apiserver down"), true, Code::kError,
       "apiserver down"},
      // The fake apiserver answers NotFound for an unknown pod.
      {"pod missing", absl::OkStatus(), false, Code::kError, "not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto handle = testing::NewHandleForTest();
    const kube::Pod pod = MakePod().Name("p").Namespace("ns").UID("uid-1").Obj();
    if (c.create_pod) {
      TRIMARAN_ASSERT_OK(handle->fake_client().CreatePod(pod).status());
    }
    if (!c.inject.ok()) handle->fake_client().FailNext("Bind", c.inject);

    TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Plugin> plugin,
                                  DefaultBinder::New(PluginArgs{}, *handle));
    auto* binder = dynamic_cast<BindPlugin*>(plugin.get());
    ASSERT_NE(binder, nullptr);
    CycleState state;
    const Status status = binder->Bind(state, pod, "n1");
    EXPECT_EQ(status.code(), c.want_code) << status;
    if (c.want_code != Code::kSuccess) {
      EXPECT_THAT(status.Message(), HasSubstr(c.want_message));
      EXPECT_EQ(status.plugin(), "DefaultBinder");
      continue;
    }
    // The binding names the pod (with its UID precondition) and the node.
    const std::vector<kube::Binding> bindings = handle->fake_client().Bindings();
    ASSERT_EQ(bindings.size(), 1u);
    EXPECT_EQ(bindings[0].metadata.name, "p");
    EXPECT_EQ(bindings[0].metadata.namespace_name, "ns");
    EXPECT_EQ(bindings[0].metadata.uid, "uid-1");
    EXPECT_EQ(bindings[0].target.kind, "Node");
    EXPECT_EQ(bindings[0].target.name, "n1");
    TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod bound, handle->fake_client().GetPod("ns", "p"));
    EXPECT_EQ(bound.spec.node_name, "n1");
  }
}

TEST(DefaultBinderTest, AConflictOnAPodAlreadyBoundToTheChosenNodeIsSuccess) {
  // A Bind whose first attempt committed but whose response was lost: the retry gets
  // 409. Bound to the node we chose is our binding; bound elsewhere is a failure.
  struct Case {
    std::string name;
    std::string bound_to;
    Code want;
  };
  const Case cases[] = {
      {"bound to the chosen node", "n1", Code::kSuccess},
      {"bound to another node", "n2", Code::kError},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto handle = testing::NewHandleForTest();
    const kube::Pod pod = MakePod().Name("p").Namespace("ns").UID("uid-1").Obj();
    TRIMARAN_ASSERT_OK(handle->fake_client().CreatePod(pod).status());
    TRIMARAN_ASSERT_OK(
        handle->fake_client().Bind(kube::MakeBinding(pod.metadata, std::string(c.bound_to))));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Plugin> plugin,
                                  DefaultBinder::New(PluginArgs{}, *handle));
    CycleState state;
    const Status status = dynamic_cast<BindPlugin*>(plugin.get())->Bind(state, pod, "n1");
    EXPECT_EQ(status.code(), c.want) << status;
    if (c.want != Code::kSuccess) {
      EXPECT_THAT(status.Message(), HasSubstr("already assigned"));
    }
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
