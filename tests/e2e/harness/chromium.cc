#include "tests/e2e/harness/chromium.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace trimaran::e2e {
namespace {

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

std::optional<std::string> OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (Executable(candidate)) return candidate;
  }
  return std::nullopt;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::string> BaseArgs(const std::string& binary, const ChromiumOptions& o,
                                  const std::string& profile_dir) {
  std::vector<std::string> args = {binary,
                                   "--headless",
                                   "--no-sandbox",  // the e2e tests run as root in CI
                                   "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--no-first-run",
                                   "--disable-extensions",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + profile_dir,
                                   absl::StrCat("--window-size=", o.width, ",", o.height)};
  args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
  if (o.virtual_time > absl::ZeroDuration()) {
    args.push_back(
        absl::StrCat("--virtual-time-budget=", absl::ToInt64Milliseconds(o.virtual_time)));
  }
  return args;
}

// Runs `args` with a timeout; stdout, or an error with the exit code and stderr's tail.
absl::StatusOr<std::string> Run(std::vector<std::string> args, const ChromiumOptions& o,
                                const std::string& err_path) {
  std::vector<std::string> quoted;
  for (const std::string& a : args) quoted.push_back(Quote(a));
  const std::string cmd = absl::StrCat("timeout -k 5 ", absl::ToInt64Seconds(o.timeout), " ",
                                       absl::StrJoin(quoted, " "), " 2>", Quote(err_path));
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return absl::InternalError("popen chromium");
  std::string out;
  std::array<char, 65536> buf;
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0) {
    std::string err;
    if (FILE* f = std::fopen(err_path.c_str(), "r"); f != nullptr) {
      while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) err.append(buf.data(), n);
      std::fclose(f);
    }
    if (err.size() > 2000) err = err.substr(err.size() - 2000);
    return absl::InternalError(absl::StrCat("chromium exited ", code, ": ", err));
  }
  return out;
}

std::string TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "trimaran-chromium-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) return "/tmp";
  return pattern;
}

}  // namespace

std::optional<std::string> ChromiumBinary() {
  if (const char* env = std::getenv("TRIMARAN_CHROMIUM"); env != nullptr && *env != '\0') {
    if (Executable(env)) return std::string(env);
    return std::nullopt;
  }
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::optional<std::string> p = OnPath(name)) return p;
  }
  return std::nullopt;
}

bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

absl::StatusOr<std::string> ChromiumDumpDom(const std::string& url,
                                            const ChromiumOptions& options) {
  std::optional<std::string> bin = ChromiumBinary();
  if (!bin) return absl::FailedPreconditionError("chromium not found");
  const std::string dir = TempDir();
  std::vector<std::string> args = BaseArgs(*bin, options, dir + "/profile");
  args.push_back("--dump-dom");
  args.push_back(url);
  absl::StatusOr<std::string> out = Run(args, options, dir + "/stderr");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return out;
}

absl::Status ChromiumScreenshot(const std::string& url, const std::string& png_path,
                                const ChromiumOptions& options) {
  std::optional<std::string> bin = ChromiumBinary();
  if (!bin) return absl::FailedPreconditionError("chromium not found");
  const std::string dir = TempDir();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(png_path).parent_path(), ec);
  std::filesystem::remove(png_path, ec);
  std::vector<std::string> args = BaseArgs(*bin, options, dir + "/profile");
  args.push_back("--screenshot=" + png_path);
  args.push_back(url);
  absl::StatusOr<std::string> out = Run(args, options, dir + "/stderr");
  std::filesystem::remove_all(dir, ec);
  if (!out.ok()) return out.status();
  if (!std::filesystem::exists(png_path) || std::filesystem::file_size(png_path) == 0) {
    return absl::InternalError(absl::StrCat("chromium wrote no screenshot to ", png_path));
  }
  return absl::OkStatus();
}

namespace {

// xterm's 256-colour palette.
std::string Palette256(int n) {
  static const int kBase[16][3] = {
      {0, 0, 0},       {205, 49, 49},   {13, 188, 121}, {229, 229, 16},
      {36, 114, 200},  {188, 63, 188},  {17, 168, 205}, {229, 229, 229},
      {102, 102, 102}, {241, 76, 76},   {35, 209, 139}, {245, 245, 67},
      {59, 142, 234},  {214, 112, 214}, {41, 184, 219}, {255, 255, 255}};
  int r = 0;
  int g = 0;
  int b = 0;
  if (n < 16) {
    r = kBase[n][0];
    g = kBase[n][1];
    b = kBase[n][2];
  } else if (n < 232) {
    const int i = n - 16;
    auto level = [](int v) { return v == 0 ? 0 : 55 + v * 40; };
    r = level(i / 36);
    g = level((i / 6) % 6);
    b = level(i % 6);
  } else {
    r = g = b = 8 + (n - 232) * 10;
  }
  return absl::StrFormat("#%02x%02x%02x", r, g, b);
}

struct Style {
  std::string fg;
  std::string bg;
  bool bold = false;
  bool operator==(const Style&) const = default;
};

void ApplySgr(const std::vector<int>& p, Style& s) {
  if (p.empty()) {
    s = Style{};
    return;
  }
  for (size_t i = 0; i < p.size(); ++i) {
    const int c = p[i];
    if (c == 0) {
      s = Style{};
    } else if (c == 1) {
      s.bold = true;
    } else if (c == 22) {
      s.bold = false;
    } else if (c >= 30 && c <= 37) {
      s.fg = Palette256(c - 30);
    } else if (c >= 90 && c <= 97) {
      s.fg = Palette256(c - 90 + 8);
    } else if (c >= 40 && c <= 47) {
      s.bg = Palette256(c - 40);
    } else if (c >= 100 && c <= 107) {
      s.bg = Palette256(c - 100 + 8);
    } else if (c == 39) {
      s.fg.clear();
    } else if (c == 49) {
      s.bg.clear();
    } else if ((c == 38 || c == 48) && i + 1 < p.size()) {
      std::string color;
      if (p[i + 1] == 5 && i + 2 < p.size()) {
        color = Palette256(p[i + 2]);
        i += 2;
      } else if (p[i + 1] == 2 && i + 4 < p.size()) {
        color = absl::StrFormat("#%02x%02x%02x", p[i + 2], p[i + 3], p[i + 4]);
        i += 4;
      }
      (c == 38 ? s.fg : s.bg) = color;
    }
  }
}

}  // namespace

std::string AnsiToHtml(const std::string& ansi, const std::string& title) {
  std::string body;
  Style style;
  bool open = false;
  auto open_span = [&] {
    if (style == Style{}) return;
    body += "<span style=\"";
    if (!style.fg.empty()) absl::StrAppend(&body, "color:", style.fg, ";");
    if (!style.bg.empty()) absl::StrAppend(&body, "background:", style.bg, ";");
    if (style.bold) body += "font-weight:bold;";
    body += "\">";
    open = true;
  };
  for (size_t i = 0; i < ansi.size(); ++i) {
    const char ch = ansi[i];
    if (ch == '\x1b' && i + 1 < ansi.size() && ansi[i + 1] == '[') {
      size_t j = i + 2;
      while (j < ansi.size() && !(ansi[j] >= 0x40 && ansi[j] <= 0x7e)) ++j;
      if (j >= ansi.size()) break;
      if (ansi[j] == 'm') {
        std::vector<int> params;
        for (absl::string_view part :
             absl::StrSplit(absl::string_view(ansi).substr(i + 2, j - i - 2), ';')) {
          int v = 0;
          params.push_back(absl::SimpleAtoi(part, &v) ? v : 0);
        }
        if (open) body += "</span>";
        open = false;
        ApplySgr(params, style);
        open_span();
      }
      i = j;
      continue;
    }
    if (ch == '\x1b') continue;
    if (ch == '&') {
      body += "&amp;";
    } else if (ch == '<') {
      body += "&lt;";
    } else if (ch == '>') {
      body += "&gt;";
    } else {
      body += ch;
    }
  }
  if (open) body += "</span>";
  return absl::StrCat(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>", title,
      "</title><style>body{margin:0;background:#1e1e1e;}pre{margin:0;padding:12px 14px;"
      "color:#d4d4d4;font:13px/1.25 'DejaVu Sans Mono','Liberation Mono',monospace;}"
      "</style></head><body><pre>",
      body, "</pre></body></html>");
}

}  // namespace trimaran::e2e
