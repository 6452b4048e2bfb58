#include "scheduler/server/health_checks.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {

absl::string_view HealthEndpointName(HealthEndpoint endpoint) {
  switch (endpoint) {
    case kHealthz:
      return "healthz";
    case kLivez:
      return "livez";
    case kReadyz:
      return "readyz";
    default:
      return "unknown";
  }
}

HealthChecks::HealthChecks() {
  entries_.push_back({"ping", kAllHealthEndpoints, [] { return absl::OkStatus(); }});
}

absl::Status HealthChecks::Add(std::string name, uint32_t endpoints, HealthCheckFn check) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("bad health check name \"", name, "\""));
  }
  if ((endpoints & kAllHealthEndpoints) == 0 || (endpoints & ~uint32_t{kAllHealthEndpoints}) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("health check ", name, ": bad endpoint set"));
  }
  if (!check)
    return absl::InvalidArgumentError(absl::StrCat("health check ", name, ": no function"));
  absl::MutexLock lock(&mu_);
  for (const Entry& e : entries_) {
    if (e.name == name) {
      return absl::AlreadyExistsError(absl::StrCat("health check ", name, " already registered"));
    }
  }
  entries_.push_back({std::move(name), endpoints, std::move(check)});
  return absl::OkStatus();
}

std::vector<HealthChecks::Entry> HealthChecks::Snapshot(HealthEndpoint endpoint) const {
  std::vector<Entry> out;
  absl::MutexLock lock(&mu_);
  for (const Entry& e : entries_) {
    if ((e.endpoints & endpoint) != 0) out.push_back(e);
  }
  return out;
}

std::vector<HealthChecks::Result> HealthChecks::Run(HealthEndpoint endpoint,
                                                    const std::set<std::string>& exclude) const {
  std::vector<Result> results;
  for (const Entry& e : Snapshot(endpoint)) {
    if (exclude.contains(e.name)) {
      results.push_back({e.name, absl::OkStatus(), true});
    } else {
      results.push_back({e.name, e.check(), false});
    }
  }
  return results;
}

std::optional<absl::Status> HealthChecks::RunOne(HealthEndpoint endpoint,
                                                 absl::string_view name) const {
  for (const Entry& e : Snapshot(endpoint)) {
    if (e.name == name) return e.check();
  }
  return std::nullopt;
}

std::vector<std::string> HealthChecks::Names(HealthEndpoint endpoint) const {
  std::vector<std::string> names;
  for (const Entry& e : Snapshot(endpoint)) names.push_back(e.name);
  return names;
}

void SettableCheck::Set(absl::Status status) {
  absl::MutexLock lock(&mu_);
  status_ = std::move(status);
}

absl::Status SettableCheck::Get() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

}  // namespace trimaran::sched
