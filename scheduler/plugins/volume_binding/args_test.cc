#include "scheduler/plugins/volume_binding/args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

absl::StatusOr<VolumeBindingArgs> Decode(const std::string& yaml) {
  PluginArgs a;
  a.args = YAML::Load(yaml);
  a.path = "profiles[0].pluginConfig[0].args";
  return DecodeVolumeBindingArgs(a);
}

TEST(VolumeBindingArgsTest, DefaultsAndValues) {
  absl::StatusOr<VolumeBindingArgs> d = Decode("");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->bind_timeout_seconds, 600);
  absl::StatusOr<VolumeBindingArgs> v = Decode("{kind: VolumeBindingArgs, bindTimeoutSeconds: 30}");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->bind_timeout_seconds, 30);
  absl::StatusOr<VolumeBindingArgs> zero = Decode("{bindTimeoutSeconds: 0}");
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->bind_timeout_seconds, 0);
}

TEST(VolumeBindingArgsTest, Errors) {
  const std::pair<std::string, std::string> cases[] = {
      {"{bindTimeoutSeconds: -1}",
       "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid "
       "BindTimeoutSeconds, should not be a negative value"},
      {"{bindTimeoutSeconds: soon}",
       "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: must be an integer"},
      {"{shape: [{utilization: 0, score: 0}]}", "profiles[0].pluginConfig[0].args.shape"},
      {"{foo: 1}", "profiles[0].pluginConfig[0].args.foo: unknown field"},
      {"{kind: Other}", "profiles[0].pluginConfig[0].args.kind: must be \"VolumeBindingArgs\""},
  };
  for (const auto& [yaml, want] : cases) {
    SCOPED_TRACE(yaml);
    absl::StatusOr<VolumeBindingArgs> got = Decode(yaml);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr(want));
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
