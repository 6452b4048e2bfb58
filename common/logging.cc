#include "common/logging.h"

#include <array>
#include <atomic>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace trimaran {
namespace {

constexpr std::array<absl::string_view, kNumComponents> kNames = {
    "main",   "config", "kube",        "informer", "queue", "cache", "framework",
    "plugin", "binder", "loadwatcher", "provider", "admin", "sim"};

std::atomic<int> g_verbosity{0};

spdlog::level::level_enum LevelForVerbosity(int v) {
  if (v >= 5) return spdlog::level::trace;
  if (v >= 4) return spdlog::level::debug;
  return spdlog::level::info;
}

struct Loggers {
  Loggers() {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    for (int i = 0; i < kNumComponents; ++i) {
      loggers[i] = std::make_shared<spdlog::logger>(std::string(kNames[i]), sink);
      loggers[i]->set_pattern("%L%m%d %H:%M:%S.%f %t %n] %v");
      loggers[i]->set_level(LevelForVerbosity(0));
      loggers[i]->flush_on(spdlog::level::warn);
    }
  }
  std::array<std::shared_ptr<spdlog::logger>, kNumComponents> loggers;
};

Loggers& AllLoggers() {
  static Loggers* loggers = new Loggers();  // never destroyed: usable during exit
  return *loggers;
}

}  // namespace

spdlog::logger& Log(Component component) {
  return *AllLoggers().loggers[static_cast<int>(component)];
}

absl::string_view ComponentName(Component component) { return kNames[static_cast<int>(component)]; }

void SetVerbosity(int v) {
  g_verbosity.store(v, std::memory_order_relaxed);
  for (auto& logger : AllLoggers().loggers) logger->set_level(LevelForVerbosity(v));
}

int Verbosity() { return g_verbosity.load(std::memory_order_relaxed); }

bool VLogIsOn(int v) { return Verbosity() >= v; }

absl::Status SetComponentLevel(absl::string_view component, absl::string_view level) {
  auto parsed = spdlog::level::from_str(std::string(level));
  // spdlog maps unknown names to `off`; only accept "off" when it was asked for.
  if (parsed == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown log level \"", level,
                     "\" (want trace, debug, info, warn, error, critical or off)"));
  }
  for (int i = 0; i < kNumComponents; ++i) {
    if (kNames[i] == component) {
      AllLoggers().loggers[i]->set_level(parsed);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown log component \"", component, "\""));
}

absl::Status SetComponentLevels(absl::string_view spec) {
  if (spec.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(spec, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    if (kv.first.empty() || kv.second.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad log level item \"", item, "\" (want component=level)"));
    }
    absl::Status s = SetComponentLevel(kv.first, kv.second);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace trimaran
