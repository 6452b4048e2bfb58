#pragma once
// The terminal under `trimaranctl nodes`' live view: an interface (so the view's loop is
// tested with FakeTerminal) and PosixTerminal over a tty (raw input without echo, the
// alternate screen, hidden cursor; everything restored on destruction), plus the
// decoding of key presses from the bytes a terminal sends.
//
// Thread-safety: a Terminal is used from one thread.

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trimaran::dashboard::terminal {

enum class Key {
  kNone,
  kLeft,    // ← h PgUp: previous page
  kRight,   // → l PgDn space: next page
  kUp,      // ↑ k: one node up
  kDown,    // ↓ j: one node down
  kSort,    // S s: next sort key
  kUsage,   // u: usage bars on/off
  kFilter,  // /: type a node-name filter
  kHelp,    // ?: key help on/off
  kBackspace,
  kEnter,
  kQuit,  // q esc ctrl+c
  kOther,
};

// One key press: its meaning in the view, and the printable ASCII character typed (0
// for anything else), which the filter prompt takes literally ('q' included).
struct KeyPress {
  Key key = Key::kNone;
  char ch = 0;
};

// Decodes the first key in `bytes`; sets `consumed` to how many bytes it used (at least
// 1 when `bytes` is not empty).
KeyPress DecodeKey(absl::string_view bytes, size_t& consumed);

struct TerminalSize {
  int rows = 24;
  int cols = 80;
};

class Terminal {
 public:
  virtual ~Terminal() = default;
  virtual TerminalSize Size() = 0;
  // Replaces the screen with `frame` (lines separated by '\n').
  virtual void Draw(const std::string& frame) = 0;
  // The next key, waiting at most `timeout`; kNone when none came.
  virtual KeyPress ReadKey(absl::Duration timeout) = 0;
};

// A scripted terminal for tests: keys are returned in order (kNone once exhausted, and
// for each queued kNone); every drawn frame is kept.
class FakeTerminal final : public Terminal {
 public:
  explicit FakeTerminal(TerminalSize size) : size_(size) {}
  void QueueKey(Key key) { keys_.push_back({key, 0}); }
  // Each character of `text` as typed.
  void QueueText(absl::string_view text) {
    while (!text.empty()) {
      size_t used = 0;
      keys_.push_back(DecodeKey(text, used));
      text.remove_prefix(used);
    }
  }
  TerminalSize Size() override { return size_; }
  void Draw(const std::string& frame) override { frames_.push_back(frame); }
  KeyPress ReadKey(absl::Duration) override {
    if (keys_.empty()) return {Key::kQuit, 0};  // a script that ends quits
    KeyPress k = keys_.front();
    keys_.pop_front();
    return k;
  }
  const std::deque<std::string>& frames() const { return frames_; }

 private:
  TerminalSize size_;
  std::deque<KeyPress> keys_;
  std::deque<std::string> frames_;
};

// Standard input/output when they are a terminal. FailedPrecondition otherwise ("the
// live view needs a terminal; use -o table or -o json").
absl::StatusOr<std::unique_ptr<Terminal>> OpenPosixTerminal();

}  // namespace trimaran::dashboard::terminal
