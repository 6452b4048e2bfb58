#include "common/check.h"

#include <atomic>
#include <cstdlib>
#include <iostream>

#include "common/logging.h"

namespace trimaran {
namespace {
std::atomic<uint64_t> g_bug_count{0};
}  // namespace

uint64_t BugCount() { return g_bug_count.load(std::memory_order_relaxed); }

namespace check_internal {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": check failed: " << condition << " ";
}

CheckFailure::~CheckFailure() {
  Log(Component::kMain).critical("{}", stream_.str());
  Log(Component::kMain).flush();
  std::cerr << stream_.str() << std::endl;
  std::abort();
}

void ReportBug(const char* file, int line, const std::string& message) {
  g_bug_count.fetch_add(1, std::memory_order_relaxed);
  Log(Component::kMain).error("bug at {}:{}: {}", file, line, message);
}

}  // namespace check_internal
}  // namespace trimaran
