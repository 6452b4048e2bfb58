#pragma once
// Helpers shared by the libFuzzer targets in this folder (fuzz/README.md).
//
//   FUZZ_CHECK(cond) << "context";   an invariant: on failure prints the condition, the
//                                    streamed context and aborts (libFuzzer saves the
//                                    input as crash-<sha1>)
//   SplitInput(data, size, n)        the input cut at kSeparator into at most n parts,
//                                    for targets that need several documents
//   ScriptedTransport                an http::HttpTransport answering every request with
//                                    what its handler returns
//   AnswerFromPart(part)             "503 body" -> HTTP 503 with "body"; else 200
//
// Thread-safety: single-threaded, as libFuzzer calls LLVMFuzzerTestOneInput.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/transport.h"

namespace trimaran::fuzz {

// Collects the message of a failed FUZZ_CHECK and aborts when destroyed.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << ": invariant failed: " << condition << ": ";
  }
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure() {
    std::fprintf(stderr, "%s\n", stream_.str().c_str());
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// A loop, not an if/else, so that `if (x) FUZZ_CHECK(y) << ...;` has no dangling else; its
// body never returns (the temporary's destructor aborts).
#define FUZZ_CHECK(condition) \
  while (!(condition)) ::trimaran::fuzz::CheckFailure(__FILE__, __LINE__, #condition).stream()

// The separator between the documents of a multi-document input. A line of its own, so
// seed files stay readable; the dictionaries carry it so that mutations keep it.
inline constexpr std::string_view kSeparator = "\n#--#\n";

// The input as at most `max_parts` parts: cut at each kSeparator, the last part taking
// the rest (separators included). Never fewer than one part (possibly empty).
inline std::vector<std::string_view> SplitInput(const uint8_t* data, size_t size,
                                                size_t max_parts) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const size_t at = rest.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(rest);
  return parts;
}

// Answers every request with handler(request): the providers' parsing sees exactly the
// fuzzer's bytes, and no network is involved.
class ScriptedTransport final : public http::HttpTransport {
 public:
  using Handler = std::function<http::HttpResponse(const http::HttpRequest&)>;
  explicit ScriptedTransport(Handler handler) : handler_(std::move(handler)) {}

  absl::StatusOr<http::HttpResponse> Send(const http::HttpRequest& request) override {
    ++requests_;
    return handler_(request);
  }
  int requests() const { return requests_; }

 private:
  Handler handler_;
  int requests_ = 0;
};

// An HTTP answer from one part of the input: a part starting with three digits and a
// space ("503 {...}") gets that status and the rest as its body, any other part is a
// 200 with the whole part as its body.
inline http::HttpResponse AnswerFromPart(std::string_view part) {
  http::HttpResponse response;
  response.status_code = 200;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (part.size() >= 4 && digit(part[0]) && digit(part[1]) && digit(part[2]) && part[3] == ' ') {
    response.status_code = (part[0] - '0') * 100 + (part[1] - '0') * 10 + (part[2] - '0');
    part.remove_prefix(4);
  }
  response.body = std::string(part);
  return response;
}

}  // namespace trimaran::fuzz
