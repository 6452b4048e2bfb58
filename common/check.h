#pragma once
// Invariant checks.
//
//   TRIMARAN_CHECK(cond) << "...";   always on; logs and aborts when `cond` is false.
//                                    For states that mean the process is wrong
//                                    (Assume without Forget, negative requests).
//   TRIMARAN_DCHECK(cond) << "...";  as CHECK in debug builds, compiled out in NDEBUG.
//   TRIMARAN_BUG("message");         logs an error and bumps trimaran_bugs_total;
//                                    the process continues (release builds).
//
// Thread-safety: safe for concurrent use.

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

namespace trimaran {
namespace check_internal {

// Collects the streamed message and aborts in its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Turns the `ostream&` of a failed check into void so both branches of ?: agree.
struct Voidify {
  void operator&(std::ostream&) {}
};

void ReportBug(const char* file, int line, const std::string& message);

}  // namespace check_internal

// Number of TRIMARAN_BUG reports since start (exported as trimaran_bugs_total).
uint64_t BugCount();

}  // namespace trimaran

#define TRIMARAN_CHECK(condition)               \
  (condition)                                   \
      ? (void)0                                 \
      : ::trimaran::check_internal::Voidify() & \
            ::trimaran::check_internal::CheckFailure(__FILE__, __LINE__, #condition).stream()

#ifdef NDEBUG
#define TRIMARAN_DCHECK(condition) \
  true ? (void)0 : ::trimaran::check_internal::Voidify() & std::cerr
#else
#define TRIMARAN_DCHECK(condition) TRIMARAN_CHECK(condition)
#endif

#define TRIMARAN_BUG(message) ::trimaran::check_internal::ReportBug(__FILE__, __LINE__, (message))
