#include "dashboard/terminal/terminal.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace trimaran::dashboard::terminal {
namespace {

class PosixTerminal final : public Terminal {
 public:
  explicit PosixTerminal(const termios& saved) : saved_(saved) {
    Write("\x1b[?1049h\x1b[?25l");  // alternate screen, hide the cursor
  }
  ~PosixTerminal() override {
    Write("\x1b[?25h\x1b[?1049l");
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
  }

  TerminalSize Size() override {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
      return {ws.ws_row, ws.ws_col};
    }
    return {};
  }

  void Draw(const std::string& frame) override {
    // Home, then each line followed by "clear to end of line", then clear below.
    // No line feed after the last line: on the bottom row it would scroll the screen.
    std::string_view body = frame;
    if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
    std::string out = "\x1b[H";
    out += absl::StrReplaceAll(absl::string_view(body.data(), body.size()), {{"\n", "\x1b[K\r\n"}});
    out += "\x1b[K";
    out += "\x1b[J";
    Write(out);
  }

  KeyPress ReadKey(absl::Duration timeout) override {
    if (pending_.empty()) {
      pollfd p{STDIN_FILENO, POLLIN, 0};
      const int ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
      if (poll(&p, 1, ms) <= 0) return {};
      char buf[64];
      const ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
      if (n <= 0) return n == 0 ? KeyPress{Key::kQuit, 0} : KeyPress{};  // EOF: quit
      pending_.append(buf, static_cast<size_t>(n));
    }
    size_t used = 0;
    const KeyPress k = DecodeKey(pending_, used);
    pending_.erase(0, used);
    return k;
  }

 private:
  static void Write(absl::string_view s) {
    while (!s.empty()) {
      const ssize_t n = write(STDOUT_FILENO, s.data(), s.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      s.remove_prefix(static_cast<size_t>(n));
    }
  }
  termios saved_;
  std::string pending_;
};

}  // namespace

namespace {

Key DecodeOne(absl::string_view b, size_t& consumed) {
  consumed = b.empty() ? 0 : 1;
  if (b.empty()) return Key::kNone;
  if (b[0] == '\x1b') {
    if (b.size() >= 3 && (b[1] == '[' || b[1] == 'O')) {
      consumed = 3;
      switch (b[2]) {
        case 'A':
          return Key::kUp;
        case 'B':
          return Key::kDown;
        case 'C':
          return Key::kRight;
        case 'D':
          return Key::kLeft;
        default:
          break;
      }
      if (b.size() >= 4 && b[3] == '~' && (b[2] == '5' || b[2] == '6')) {
        consumed = 4;
        return b[2] == '5' ? Key::kLeft : Key::kRight;  // PgUp, PgDn
      }
      // Skip an unknown CSI sequence to its final byte.
      size_t i = 2;
      while (i < b.size() && !(b[i] >= '@' && b[i] <= '~')) ++i;
      consumed = std::min(b.size(), i + 1);
      return Key::kOther;
    }
    return Key::kQuit;  // a lone esc
  }
  switch (b[0]) {
    case 'q':
    case '\x03':  // ctrl+c
      return Key::kQuit;
    case 'h':
      return Key::kLeft;
    case 'l':
    case ' ':
      return Key::kRight;
    case 'k':
      return Key::kUp;
    case 'j':
      return Key::kDown;
    case 'S':
    case 's':
      return Key::kSort;
    case 'u':
      return Key::kUsage;
    case '/':
      return Key::kFilter;
    case '?':
      return Key::kHelp;
    case '\x7f':
    case '\b':
      return Key::kBackspace;
    case '\r':
    case '\n':
      return Key::kEnter;
    default:
      return Key::kOther;
  }
}

}  // namespace

KeyPress DecodeKey(absl::string_view b, size_t& consumed) {
  KeyPress k;
  k.key = DecodeOne(b, consumed);
  if (consumed == 1 && b[0] >= 0x20 && b[0] < 0x7f) k.ch = b[0];
  return k;
}

absl::StatusOr<std::unique_ptr<Terminal>> OpenPosixTerminal() {
  if (isatty(STDIN_FILENO) == 0 || isatty(STDOUT_FILENO) == 0) {
    return absl::FailedPreconditionError("the live view needs a terminal; use -o table or -o json");
  }
  termios saved{};
  if (tcgetattr(STDIN_FILENO, &saved) != 0) {
    return absl::FailedPreconditionError("cannot read the terminal's settings");
  }
  termios raw = saved;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO | ISIG);
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0) {
    return absl::FailedPreconditionError("cannot set the terminal to raw input");
  }
  return std::unique_ptr<Terminal>(new PosixTerminal(saved));
}

}  // namespace trimaran::dashboard::terminal
