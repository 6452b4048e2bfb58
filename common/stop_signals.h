#pragma once
// The daemons' and long-running commands' stop signals, the one implementation
// (trimaran-scheduler, load-watcher, trimaranctl dashboard): SIGTERM and SIGINT are
// blocked in the calling thread before any other thread starts (threads inherit the
// mask), so that only the thread that waits for them with sigwait sees them; SIGPIPE is
// ignored (a peer closing a socket is an error return, never a signal).
//
// Thread-safety: BlockStopSignals changes the process's SIGPIPE disposition and the
// calling thread's mask: call it once, from main's thread, before starting threads.
// WaitForStopSignal may be called from any thread that has the signals blocked.

#include <csignal>

namespace trimaran {

// Blocks SIGTERM and SIGINT in the calling thread, ignores SIGPIPE; returns the blocked
// set, for WaitForStopSignal.
sigset_t BlockStopSignals();

// Waits (sigwait) for one of `stop_signals`; returns its number, or 0 when sigwait fails.
int WaitForStopSignal(const sigset_t& stop_signals);

}  // namespace trimaran
