#pragma once
// SplitFlags: the one command-line splitter of trimaranctl's commands. A command
// declares how its flags are spelled (FlagSyntax) and reads the result in order; what a
// value means, and which errors win, stay with the command.
//
//   --name VALUE, --name=VALUE   a value flag (a declared value flag at the end of the
//                                arguments is kMissingValue)
//   --name, --name=VALUE         a bool flag (the command reads VALUE: "true", "false"...)
//   -oVALUE                      -o VALUE, kubectl style, when attached_short_output
//   -                            a positional argument (stdin for commands reading FILE)
//   -anything-else               kUnknownFlag; everything else is kPositional
//
// Thread-safety: pure functions.

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace trimaran::cmd::trimaranctl {

struct FlagSyntax {
  std::vector<std::string> value_flags;  // e.g. "--output", "-o"
  std::vector<std::string> bool_flags;   // e.g. "--help", "-h"
  bool attached_short_output = false;    // "-ojson" is "-o json"
};

struct FlagArg {
  enum class Kind { kFlag, kPositional, kUnknownFlag, kMissingValue };
  Kind kind = Kind::kPositional;
  // kFlag and kMissingValue: the flag as declared ("--output", "-o"); kUnknownFlag: the
  // argument as given.
  std::string name;
  // kFlag: the value ("" for a bare bool flag); kPositional: the argument.
  std::string value;

  bool is(const char* flag) const { return kind == Kind::kFlag && name == flag; }
};

// Splits `args` in order; never fails (errors are tokens, FlagArgError names them).
std::vector<FlagArg> SplitFlags(const std::vector<std::string>& args, const FlagSyntax& syntax);

// InvalidArgument for kUnknownFlag (`unknown flag "--x"`) and kMissingValue
// (`--x: needs a value`); OK for the other kinds.
absl::Status FlagArgError(const FlagArg& arg);

}  // namespace trimaran::cmd::trimaranctl
