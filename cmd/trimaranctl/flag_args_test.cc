#include "cmd/trimaranctl/flag_args.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using Kind = FlagArg::Kind;

const FlagSyntax kSyntax = {
    .value_flags = {"--output", "-o", "--watcher"},
    .bool_flags = {"--no-color", "--help", "-h"},
    .attached_short_output = true,
};

std::string Describe(const std::vector<FlagArg>& tokens) {
  std::string out;
  for (const FlagArg& t : tokens) {
    switch (t.kind) {
      case Kind::kFlag:
        out += "flag(" + t.name + "=" + t.value + ") ";
        break;
      case Kind::kPositional:
        out += "arg(" + t.value + ") ";
        break;
      case Kind::kUnknownFlag:
        out += "unknown(" + t.name + ") ";
        break;
      case Kind::kMissingValue:
        out += "missing(" + t.name + ") ";
        break;
    }
  }
  return out;
}

TEST(SplitFlagsTest, Spellings) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--output", "json"}, "flag(--output=json) "},
      {{"--output=json"}, "flag(--output=json) "},
      {{"-o", "json"}, "flag(-o=json) "},
      {{"-ojson"}, "flag(-o=json) "},
      {{"--watcher="}, "flag(--watcher=) "},
      {{"--watcher", "--no-color"}, "flag(--watcher=--no-color) "},  // a value is a value
      {{"--no-color"}, "flag(--no-color=) "},
      {{"--no-color=false"}, "flag(--no-color=false) "},
      {{"-h", "FILE", "-"}, "flag(-h=) arg(FILE) arg(-) "},
      {{"--outputs"}, "unknown(--outputs) "},
      {{"--no-colors"}, "unknown(--no-colors) "},
      {{"-o-x"}, "unknown(-o-x) "},
      {{"--bogus", "x"}, "unknown(--bogus) arg(x) "},
      {{"x", "--watcher"}, "arg(x) missing(--watcher) "},
  };
  for (const auto& [args, want] : cases) {
    EXPECT_EQ(Describe(SplitFlags(args, kSyntax)), want) << args[0];
  }
}

TEST(SplitFlagsTest, AttachedOutputOnlyWhenDeclared) {
  FlagSyntax syntax = kSyntax;
  syntax.attached_short_output = false;
  EXPECT_EQ(Describe(SplitFlags({"-ojson"}, syntax)), "unknown(-ojson) ");
}

TEST(SplitFlagsTest, ErrorsNameTheFlag) {
  const std::vector<FlagArg> tokens = SplitFlags({"--bogus", "--output"}, kSyntax);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(FlagArgError(tokens[0]).message(), "unknown flag \"--bogus\"");
  EXPECT_EQ(FlagArgError(tokens[1]).message(), "--output: needs a value");
  EXPECT_TRUE(FlagArgError(SplitFlags({"--no-color"}, kSyntax)[0]).ok());
  EXPECT_TRUE(SplitFlags({"--no-color"}, kSyntax)[0].is("--no-color"));
  EXPECT_FALSE(SplitFlags({"--no-color"}, kSyntax)[0].is("--help"));
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl
