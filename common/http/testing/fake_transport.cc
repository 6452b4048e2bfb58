#include "common/http/testing/fake_transport.h"

#include <stop_token>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trimaran::http::testing {
namespace {

absl::Status Cancelled(const HttpRequest& request) {
  return absl::CancelledError(absl::StrCat(request.method, " ", request.url, ": cancelled"));
}

// Streams `chunks` the way CurlTransport would: to on_chunk for a 2xx streaming
// request, into the body otherwise.
absl::StatusOr<HttpResponse> Deliver(const HttpRequest& request, HttpResponse response,
                                     const std::vector<std::string>& chunks) {
  const bool stream = request.on_chunk && response.ok();
  for (const std::string& chunk : chunks) {
    if (request.stop_token.stop_requested()) return Cancelled(request);
    if (!stream) {
      response.body += chunk;
    } else if (!request.on_chunk(chunk)) {
      break;
    }
  }
  return response;
}

}  // namespace

void FakeStream::Push(std::string chunk) {
  absl::MutexLock lock(&mu_);
  pending_.push_back(std::move(chunk));
}

void FakeStream::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

void FakeStream::Fail(absl::Status status) {
  absl::MutexLock lock(&mu_);
  failure_ = std::move(status);
}

bool FakeStream::WaitForClient(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&attached_), timeout);
}

bool FakeStream::WaitForEnd(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&ended_), timeout);
}

bool FakeStream::ClientStopped() const {
  absl::MutexLock lock(&mu_);
  return client_stopped_;
}

bool FakeStream::HasWork() const {
  return !pending_.empty() || closed_ || failure_.has_value() || stop_requested_;
}

absl::StatusOr<HttpResponse> FakeStream::Serve(const HttpRequest& request, HttpResponse head) {
  {
    absl::MutexLock lock(&mu_);
    attached_ = true;
  }
  // Runs at once (on this thread) when stop was already requested; mu_ is not held here.
  std::stop_callback on_stop(request.stop_token, [this] {
    absl::MutexLock lock(&mu_);
    stop_requested_ = true;
  });
  const bool stream = request.on_chunk && head.ok();
  while (true) {
    std::string chunk;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &FakeStream::HasWork));
      if (stop_requested_) {
        client_stopped_ = true;
        ended_ = true;
        return Cancelled(request);
      }
      if (!pending_.empty()) {
        chunk = std::move(pending_.front());
        pending_.pop_front();
      } else {
        ended_ = true;
        if (failure_.has_value()) return *failure_;
        return head;
      }
    }
    if (!stream) {
      head.body += chunk;
    } else if (!request.on_chunk(chunk)) {
      absl::MutexLock lock(&mu_);
      client_stopped_ = true;
      ended_ = true;
      return head;
    }
  }
}

void FakeTransport::AddRule(std::string method, std::string url_prefix, int times,
                            Handler handler) {
  absl::MutexLock lock(&mu_);
  rules_.push_back(Rule{std::move(method), std::move(url_prefix), times, std::move(handler)});
}

void FakeTransport::AddResponse(std::string method, std::string url_prefix, int status_code,
                                std::string body, Headers headers, int times) {
  HttpResponse response{status_code, std::move(headers), std::move(body)};
  AddRule(std::move(method), std::move(url_prefix), times,
          [response](const HttpRequest&) -> absl::StatusOr<HttpResponse> { return response; });
}

void FakeTransport::AddError(std::string method, std::string url_prefix, absl::Status status,
                             int times) {
  AddRule(std::move(method), std::move(url_prefix), times,
          [status](const HttpRequest&) -> absl::StatusOr<HttpResponse> { return status; });
}

void FakeTransport::AddStream(std::string method, std::string url_prefix,
                              std::vector<std::string> chunks, int status_code, Headers headers,
                              int times) {
  HttpResponse head{status_code, std::move(headers), ""};
  AddRule(std::move(method), std::move(url_prefix), times,
          [head, chunks = std::move(chunks)](const HttpRequest& request) {
            return Deliver(request, head, chunks);
          });
}

std::shared_ptr<FakeStream> FakeTransport::AddOpenStream(std::string method, std::string url_prefix,
                                                         int status_code, Headers headers) {
  auto stream = std::make_shared<FakeStream>();
  HttpResponse head{status_code, std::move(headers), ""};
  AddRule(std::move(method), std::move(url_prefix), /*times=*/1,
          [stream, head](const HttpRequest& request) { return stream->Serve(request, head); });
  return stream;
}

void FakeTransport::AddHandler(std::string method, std::string url_prefix, Handler handler,
                               int times) {
  AddRule(std::move(method), std::move(url_prefix), times, std::move(handler));
}

void FakeTransport::ClearRules() {
  absl::MutexLock lock(&mu_);
  rules_.clear();
}

absl::StatusOr<HttpResponse> FakeTransport::Send(const HttpRequest& request) {
  Handler handler;
  {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
    for (auto it = rules_.begin(); it != rules_.end(); ++it) {
      if ((!it->method.empty() && it->method != request.method) ||
          !absl::StartsWith(request.url, it->url_prefix)) {
        continue;
      }
      handler = it->handler;
      if (it->remaining > 0 && --it->remaining == 0) rules_.erase(it);
      break;
    }
  }
  if (request.stop_token.stop_requested()) return Cancelled(request);
  if (!handler) {
    return HttpResponse{
        404, Headers{{"Content-Type", "text/plain"}},
        absl::StrCat("FakeTransport: no rule for ", request.method, " ", request.url)};
  }
  return handler(request);
}

std::vector<HttpRequest> FakeTransport::Requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

std::optional<HttpRequest> FakeTransport::LastRequest() const {
  absl::MutexLock lock(&mu_);
  if (requests_.empty()) return std::nullopt;
  return requests_.back();
}

int FakeTransport::RequestCount() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(requests_.size());
}

void FakeTransport::ClearRequests() {
  absl::MutexLock lock(&mu_);
  requests_.clear();
}

}  // namespace trimaran::http::testing
