#pragma once
// trimaranctl's test data and golden outputs (cmd/trimaranctl/testdata/: the documented
// examples of `trimaranctl score` and `trimaranctl explain`, docs/trimaranctl.md), read by
// the tests of the commands and of the libraries behind them (scheduler/explain's
// score input, scheduler/decisions' explain output).
//
// Thread-safety: reentrant; ExpectGolden runs on a gtest test's thread.

#include <string>

namespace trimaran::sched::decisions::testing {

// The path of `name` in cmd/trimaranctl/testdata/.
std::string TestData(const std::string& name);

// The content of `path`; "" when it cannot be read.
std::string ReadFile(const std::string& path);

// Expects `actual` to equal the golden file `golden_name` (in the test data);
// TRIMARANCTL_UPDATE_GOLDEN=1 rewrites the file instead and skips the test.
void ExpectGolden(const std::string& actual, const std::string& golden_name);

}  // namespace trimaran::sched::decisions::testing
