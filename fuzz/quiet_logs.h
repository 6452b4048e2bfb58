#pragma once
// Turns every Trimaran logger off, for fuzzers whose code under test logs on each
// rejected input (warnings would dominate the run time and bury libFuzzer's output).
// Call once, from LLVMFuzzerInitialize.

#include "common/logging.h"
#include "spdlog/spdlog.h"

namespace trimaran::fuzz {

inline void QuietLogs() {
  for (int i = 0; i < kNumComponents; ++i) {
    Log(static_cast<Component>(i)).set_level(spdlog::level::off);
  }
}

}  // namespace trimaran::fuzz
