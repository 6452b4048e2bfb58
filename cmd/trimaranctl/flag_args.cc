#include "cmd/trimaranctl/flag_args.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trimaran::cmd::trimaranctl {
namespace {

// "--name=value": true with `value` set when `arg` is `name` followed by '='.
bool SplitAtEquals(const std::string& arg, const std::string& name, std::string& value) {
  if (arg.size() <= name.size() || arg[name.size()] != '=' || !absl::StartsWith(arg, name)) {
    return false;
  }
  value = arg.substr(name.size() + 1);
  return true;
}

bool IsAttachedShortOutput(const std::string& arg) {
  return arg.size() > 2 && absl::StartsWith(arg, "-o") && arg[2] != '-';
}

}  // namespace

std::vector<FlagArg> SplitFlags(const std::vector<std::string>& args, const FlagSyntax& syntax) {
  std::vector<FlagArg> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    FlagArg token;
    if (arg == "-" || !absl::StartsWith(arg, "-")) {
      token.value = arg;
      out.push_back(std::move(token));
      continue;
    }
    token.kind = FlagArg::Kind::kFlag;
    const auto is_bool = std::find(syntax.bool_flags.begin(), syntax.bool_flags.end(), arg);
    if (is_bool != syntax.bool_flags.end()) {
      token.name = arg;
      out.push_back(std::move(token));
      continue;
    }
    bool matched = false;
    for (const std::string& name : syntax.bool_flags) {
      if (SplitAtEquals(arg, name, token.value)) {
        token.name = name;
        matched = true;
        break;
      }
    }
    for (const std::string& name : syntax.value_flags) {
      if (matched) break;
      if (arg == name) {
        token.name = name;
        if (i + 1 >= args.size()) {
          token.kind = FlagArg::Kind::kMissingValue;
        } else {
          token.value = args[++i];
        }
        matched = true;
      } else if (SplitAtEquals(arg, name, token.value)) {
        token.name = name;
        matched = true;
      }
    }
    if (!matched && syntax.attached_short_output && IsAttachedShortOutput(arg)) {
      token.name = "-o";
      token.value = arg.substr(2);
      matched = true;
    }
    if (!matched) {
      token.kind = FlagArg::Kind::kUnknownFlag;
      token.name = arg;
    }
    out.push_back(std::move(token));
  }
  return out;
}

absl::Status FlagArgError(const FlagArg& arg) {
  switch (arg.kind) {
    case FlagArg::Kind::kUnknownFlag:
      return absl::InvalidArgumentError(absl::StrCat("unknown flag \"", arg.name, "\""));
    case FlagArg::Kind::kMissingValue:
      return absl::InvalidArgumentError(absl::StrCat(arg.name, ": needs a value"));
    case FlagArg::Kind::kFlag:
    case FlagArg::Kind::kPositional:
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace trimaran::cmd::trimaranctl
