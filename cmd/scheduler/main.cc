// trimaran-scheduler: a second Kubernetes scheduler (pods opt in with
// spec.schedulerName). Flags: options.h; the daemon: app.h.
//
// Exit codes: 0 after --help, --version, --write-config-to, or a graceful stop
// (SIGTERM/SIGINT); 1 for bad flags, an invalid configuration (every error listed), a
// start-up failure, or lost leadership.
#include <signal.h>

#include <cstdio>
#include <string>
#include <thread>

#include "cmd/scheduler/app.h"
#include "cmd/scheduler/options.h"
#include "common/logging.h"
#include "common/stop_signals.h"
#include "common/version.h"

namespace {

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "Error: %s\n", std::string(status.message()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<trimaran::cmd::SchedulerOptions> options =
      trimaran::cmd::ParseSchedulerFlags(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "Error: %s\n\nRun 'trimaran-scheduler --help' for usage.\n",
                 std::string(options.status().message()).c_str());
    return 1;
  }
  if (options->help) {
    // kube-scheduler (cobra) exits 0 on --help.
    std::fputs(trimaran::cmd::SchedulerHelpText().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("trimaran-scheduler %s\n", trimaran::kVersion);
    return 0;
  }
  if (absl::Status s = trimaran::cmd::ApplyLogging(*options); !s.ok()) {
    PrintError(s);
    return 1;
  }
  absl::StatusOr<trimaran::sched::config::SchedulerConfig> config =
      trimaran::cmd::LoadEffectiveConfig(*options);
  if (!config.ok()) {
    std::fprintf(stderr, "Error: invalid configuration:\n%s\n",
                 std::string(config.status().message()).c_str());
    return 1;
  }
  if (!options->write_config_to.empty()) {
    if (absl::Status s = trimaran::cmd::WriteEffectiveConfig(*config, options->write_config_to);
        !s.ok()) {
      PrintError(s);
      return 1;
    }
    if (options->write_config_to != "-" && options->write_config_to != "/dev/stdout") {
      std::fprintf(stderr, "Wrote configuration to: %s\n", options->write_config_to.c_str());
    }
    return 0;
  }

  // Block the stop signals in every thread; one thread waits for them.
  const sigset_t signals = trimaran::BlockStopSignals();

  absl::StatusOr<std::unique_ptr<trimaran::cmd::SchedulerApp>> app =
      trimaran::cmd::SchedulerApp::Create(*options, *std::move(config));
  if (!app.ok()) {
    PrintError(app.status());
    return 1;
  }
  trimaran::cmd::SchedulerApp* a = app->get();
  std::thread signal_thread([a, signals] {
    if (const int sig = trimaran::WaitForStopSignal(signals); sig != 0) {
      trimaran::Log(trimaran::Component::kMain)
          .info(
              "received {}; stopping: no new pods or bindings, waiting bindings dropped (pods stay "
              "pending)",
              sig == SIGTERM ? "SIGTERM" : "SIGINT");
      a->RequestStop();
    }
  });
  signal_thread.detach();
  const int code = a->Run();
  app->reset();
  std::fflush(stdout);
  // The signal thread may still wait in sigwait; exit without joining it.
  std::_Exit(code);
}
