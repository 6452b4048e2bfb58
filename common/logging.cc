#include "common/logging.h"

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/json_string.h"
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

bool IsKeyToken(absl::string_view token) {
  const size_t eq = token.find('=');
  if (eq == absl::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    const char c = token[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (i > 0 && ((c >= '0' && c <= '9') || c == '.'));
    if (!ok) return false;
  }
  return true;
}

absl::string_view Unquote(absl::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
  return v;
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    int v = 0;
    absl::string_view severity;
    switch (msg.level) {
      case spdlog::level::trace:
        v = 5;
        break;
      case spdlog::level::debug:
        v = 4;
        break;
      case spdlog::level::warn:
        severity = "warning";
        break;
      case spdlog::level::err:
      case spdlog::level::critical:
        severity = "error";
        break;
      default:
        break;
    }
    const double ts = std::chrono::duration<double>(msg.time.time_since_epoch()).count();
    const std::string line = FormatJsonLogLine(
        ts, v, severity, absl::string_view(msg.logger_name.data(), msg.logger_name.size()),
        absl::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(line.data(), line.data() + line.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

std::string FormatJsonLogLine(double ts_seconds, int v, absl::string_view severity,
                              absl::string_view logger, absl::string_view message) {
  std::vector<absl::string_view> tokens = absl::StrSplit(message, ' ');
  size_t first_key = tokens.size();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (IsKeyToken(tokens[i])) {
      first_key = i;
      break;
    }
  }
  std::string out = absl::StrFormat("{\"ts\":%.6f,\"v\":%d", ts_seconds, v);
  if (!severity.empty()) {
    out += ",\"severity\":";
    AppendJsonString(out, severity);
  }
  out += ",\"logger\":";
  AppendJsonString(out, logger);
  out += ",\"msg\":";
  const size_t msg_end = first_key == tokens.size()
                             ? message.size()
                             : static_cast<size_t>(tokens[first_key].data() - message.data());
  AppendJsonString(out, Unquote(absl::StripTrailingAsciiWhitespace(message.substr(0, msg_end))));
  // key=value pairs; a value runs until the next key token (it may hold spaces).
  size_t i = first_key;
  while (i < tokens.size()) {
    const absl::string_view tok = tokens[i];
    const size_t eq = tok.find('=');
    const absl::string_view key = tok.substr(0, eq);
    const char* value_begin = tok.data() + eq + 1;
    const char* value_end = tok.data() + tok.size();
    size_t j = i + 1;
    while (j < tokens.size() && !IsKeyToken(tokens[j])) {
      value_end = tokens[j].data() + tokens[j].size();
      ++j;
    }
    if (key != "ts" && key != "v" && key != "msg" && key != "logger" && key != "severity") {
      out.push_back(',');
      AppendJsonString(out, key);
      out.push_back(':');
      AppendJsonString(out, Unquote(absl::string_view(
                                value_begin, static_cast<size_t>(value_end - value_begin))));
    }
    i = j;
  }
  out.push_back('}');
  return out;
}

absl::Status SetLoggingFormat(absl::string_view format) {
  if (format == "text") {
    for (auto& logger : AllLoggers().loggers) logger->set_pattern("%L%m%d %H:%M:%S.%f %t %n] %v");
    return absl::OkStatus();
  }
  if (format == "json") {
    for (auto& logger : AllLoggers().loggers)
      logger->set_formatter(std::make_unique<JsonFormatter>());
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported logging format \"", format, "\" (text or json)"));
}

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
