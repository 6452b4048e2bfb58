#include "common/stop_signals.h"

#include <pthread.h>

namespace trimaran {

sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

int WaitForStopSignal(const sigset_t& stop_signals) {
  int signal_number = 0;
  if (sigwait(&stop_signals, &signal_number) != 0) return 0;
  return signal_number;
}

}  // namespace trimaran
