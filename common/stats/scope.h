#pragma once
// A Scope is a Registry plus a name prefix, handed to a component so that its stats land
// under one namespace without the component knowing it. The component names its
// families relative to the scope and never adds to the prefix; only the composition root
// (a program's main or app, a tool, a test) picks prefixes, so every exported name is
// decided in one place per program (docs/metrics.md lists the daemons'):
//
//   // The composition root:
//   Scope trimaran(DefaultRegistry(), "trimaran_");
//   lw::Watcher watcher(provider, clock, trimaran.Child("loadwatcher_"));
//   // The component (loadwatcher/watcher.cc):
//   scope.CounterFamily("fetches_total", "...", {"provider", "window", "result"});
//   // registers trimaran_loadwatcher_fetches_total
//
// The prefix is prepended verbatim, so include the trailing "_". Registration errors are
// fatal as in Registry::CounterFamily and friends; use registry() with prefix() for the
// status-returning forms. Tests give components a Scope over their own Registry.
//
// Thread-safety: immutable; safe for concurrent use. A Scope is a small value: copy it
// freely; it must not outlive its Registry.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/stats/family.h"
#include "common/stats/registry.h"

namespace trimaran::stats {

class Scope {
 public:
  explicit Scope(Registry& registry, std::string prefix = "")
      : registry_(&registry), prefix_(std::move(prefix)) {}

  // A scope over the same registry whose prefix is this one's plus `prefix`. For
  // composition roots; a component never calls it on the scope it was given.
  Scope Child(absl::string_view prefix) const {
    return Scope(*registry_, absl::StrCat(prefix_, prefix));
  }

  Registry& registry() const { return *registry_; }
  const std::string& prefix() const { return prefix_; }

  Family<Counter>& CounterFamily(absl::string_view name, absl::string_view help,
                                 std::vector<std::string> label_names = {}) const {
    return registry_->CounterFamily(absl::StrCat(prefix_, name), help, std::move(label_names));
  }
  Family<Gauge>& GaugeFamily(absl::string_view name, absl::string_view help,
                             std::vector<std::string> label_names = {}) const {
    return registry_->GaugeFamily(absl::StrCat(prefix_, name), help, std::move(label_names));
  }
  Family<Histogram>& HistogramFamily(absl::string_view name, absl::string_view help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> bucket_bounds) const {
    return registry_->HistogramFamily(absl::StrCat(prefix_, name), help, std::move(label_names),
                                      std::move(bucket_bounds));
  }
  Family<CallbackGauge>& CallbackGaugeFamily(absl::string_view name, absl::string_view help,
                                             std::vector<std::string> label_names = {}) const {
    return registry_->CallbackGaugeFamily(absl::StrCat(prefix_, name), help,
                                          std::move(label_names));
  }
  Family<CallbackCounter>& CallbackCounterFamily(absl::string_view name, absl::string_view help,
                                                 std::vector<std::string> label_names = {}) const {
    return registry_->CallbackCounterFamily(absl::StrCat(prefix_, name), help,
                                            std::move(label_names));
  }

 private:
  Registry* registry_;
  std::string prefix_;
};

}  // namespace trimaran::stats
