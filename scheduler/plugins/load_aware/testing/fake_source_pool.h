#pragma once
// FakeSourcePool: an lw::SourcePool for plugin tests. Hands out one client for every
// InProcess/Remote call (or an error) and records the calls.
//
// Thread-safety: safe for concurrent use.

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "loadwatcher/source_pool.h"

namespace trimaran::sched::plugins::load_aware::testing {

class FakeSourcePool final : public lw::SourcePool {
 public:
  explicit FakeSourcePool(lw::Client* client) : client_(client) {}

  absl::StatusOr<lw::Client*> InProcess(const lw::ProviderSpec& spec) override {
    absl::MutexLock lock(&mu_);
    in_process_.push_back(spec);
    if (!error_.ok()) return error_;
    return client_;
  }
  absl::StatusOr<lw::Client*> Remote(absl::string_view address) override {
    absl::MutexLock lock(&mu_);
    remote_.emplace_back(address);
    if (!error_.ok()) return error_;
    return client_;
  }
  void SetError(absl::Status error) {
    absl::MutexLock lock(&mu_);
    error_ = std::move(error);
  }
  std::vector<lw::ProviderSpec> in_process() const {
    absl::MutexLock lock(&mu_);
    return in_process_;
  }
  std::vector<std::string> remote() const {
    absl::MutexLock lock(&mu_);
    return remote_;
  }

 private:
  lw::Client* const client_;
  mutable absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  std::vector<lw::ProviderSpec> in_process_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> remote_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::plugins::load_aware::testing
