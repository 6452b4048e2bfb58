#include "common/stop_signals.h"

#include <pthread.h>

#include <csignal>

#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(StopSignalsTest, BlocksTermAndIntAndIgnoresPipe) {
  sigset_t saved_mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &saved_mask);
  struct sigaction saved_pipe {};
  sigaction(SIGPIPE, nullptr, &saved_pipe);

  const sigset_t stop_signals = BlockStopSignals();
  EXPECT_EQ(sigismember(&stop_signals, SIGTERM), 1);
  EXPECT_EQ(sigismember(&stop_signals, SIGINT), 1);
  EXPECT_EQ(sigismember(&stop_signals, SIGPIPE), 0);
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  EXPECT_EQ(sigismember(&mask, SIGTERM), 1);
  EXPECT_EQ(sigismember(&mask, SIGINT), 1);
  struct sigaction pipe_action {};
  sigaction(SIGPIPE, nullptr, &pipe_action);
  EXPECT_EQ(pipe_action.sa_handler, SIG_IGN);

  // A blocked signal stays pending until the wait takes it.
  ASSERT_EQ(pthread_kill(pthread_self(), SIGTERM), 0);
  EXPECT_EQ(WaitForStopSignal(stop_signals), SIGTERM);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGINT), 0);
  EXPECT_EQ(WaitForStopSignal(stop_signals), SIGINT);

  sigaction(SIGPIPE, &saved_pipe, nullptr);
  pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
}

}  // namespace
}  // namespace trimaran
