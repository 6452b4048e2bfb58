#include "tests/e2e/harness/proc_metrics.h"

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trimaran::e2e {

double SumSamples(const std::string& exposition, absl::string_view name,
                  const std::vector<std::string>& labels) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t end = line.find_first_of("{ ");
    if (end == absl::string_view::npos || line.substr(0, end) != name) continue;
    bool match = true;
    for (const std::string& l : labels) match = match && absl::StrContains(line, l);
    if (!match) continue;
    const size_t sp = line.rfind(' ');
    double v = 0;
    if (absl::SimpleAtod(line.substr(sp + 1), &v)) sum += v;
  }
  return sum;
}

int64_t ProcStatusKb(pid_t pid, absl::string_view field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  const std::string prefix = absl::StrCat(field, ":");
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, prefix)) continue;
    int64_t kb = -1;
    std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (parts.size() >= 2 && absl::SimpleAtoi(parts[1], &kb)) return kb;
    return -1;
  }
  return -1;
}

}  // namespace trimaran::e2e
