#pragma once
// Named per-component loggers on spdlog, with kube-style verbosity.
//
//   Log(Component::kQueue).info("pod added pod={}", key);
//   if (VLogIsOn(4)) Log(Component::kFramework).debug(...);
//
// Verbosity follows klog's `--v=N`: 0-3 log info and above, 4 adds debug (one line per
// pod decision), 5 and more add trace (per node and plugin). Warn is always paired with
// a stat by the caller (docs/architecture.md, "Logging").
// Line format, like klog: `I1121 23:45:01.123456 140234 queue] message key=value`.
//
// Thread-safety: safe for concurrent use. The loggers are created on first use and live
// for the whole process.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/spdlog.h"

namespace trimaran {

enum class Component {
  kMain,
  kConfig,
  kKube,
  kInformer,
  kQueue,
  kCache,
  kFramework,
  kPlugin,
  kBinder,
  kLoadWatcher,
  kProvider,
  kAdmin,
  kSim,
};
inline constexpr int kNumComponents = static_cast<int>(Component::kSim) + 1;

// The logger of `component`. Never null.
spdlog::logger& Log(Component component);

// "queue", "loadwatcher", ...: the logger's name and the key for SetComponentLevel.
absl::string_view ComponentName(Component component);

// Sets every component's level from a klog verbosity (see above).
void SetVerbosity(int v);
int Verbosity();
// True when messages at klog verbosity `v` are logged.
bool VLogIsOn(int v);

// Sets one component's level: "trace", "debug", "info", "warn", "error", "off".
// Returns InvalidArgument naming the bad component or level.
absl::Status SetComponentLevel(absl::string_view component, absl::string_view level);

// Parses a comma list "queue=debug,provider=trace" (the --log-levels flag).
absl::Status SetComponentLevels(absl::string_view spec);

// --logging-format: "text" (the klog line above, the default) or "json": one JSON object
// per line with kube's structured-logging field names,
//   {"ts":1764180000.123456,"v":2,"logger":"binder","msg":"Successfully bound pod to node",
//    "pod":"default/web-1","node":"node-3"}
// ts = seconds since the epoch; v = the klog verbosity of the line (0 for info and above,
// 4 debug, 5 trace); warnings and errors add "severity":"warning"/"error". The message's
// trailing `key=value` pairs (this project's log convention) become fields (values are
// strings, surrounding quotes removed); the text before the first pair is "msg".
// InvalidArgument for another name.
absl::Status SetLoggingFormat(absl::string_view format);

// The JSON line of one message (exposed for tests), without the newline.
std::string FormatJsonLogLine(double ts_seconds, int v, absl::string_view severity,
                              absl::string_view logger, absl::string_view message);

}  // namespace trimaran

// Lets log lines format absl::string_view (Debian's Abseil has its own string_view type)
// and absl::Status directly: Log(c).warn("failed err=\"{}\"", status.message()).
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};

template <>
struct fmt::formatter<absl::Status> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(const absl::Status& s, FormatContext& ctx) const {
    std::string text = s.ToString();
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
  }
};
