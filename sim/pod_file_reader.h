#pragma once
// Streams a pods file (trace.h's CSV or JSONL, by extension) one pod at a time, through
// the whole-file parser's row parsers: the same strict "file:line: ..." errors, without
// holding the file or the pods. A PodSource (pod_source.h) for Simulate.
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<PodFileReader> r, PodFileReader::Open(path));
//   while (true) {
//     TRIMARAN_ASSIGN_OR_RETURN(std::optional<TracePod> pod, r->Next());
//     if (!pod.has_value()) break;
//     ...
//   }
//
// The file must be sorted by creation_time (as `simulate gen`, `simulate import` and
// FormatPodsCsv of a parsed trace write it): a pod before its predecessor is
// InvalidArgument "file:line: creation_time: ... not sorted" unless
// Options::allow_unsorted. ScanPodFile reads a file once to check it whole (every row,
// unique names, the order) before it is streamed; the CLI loads an unsorted file whole
// instead (ParsePods sorts it).
//
// Memory: one line and one pod at a time; with Options::check_unique_names, also a set
// of 64-bit fingerprints of the names (~16 bytes per pod; a fingerprint seen twice is
// confirmed by re-reading the file, so a collision is never a false error).
//
// Thread-safety: a reader is used by one thread at a time; ScanPodFile is reentrant.

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "sim/pod_source.h"
#include "sim/trace.h"

namespace trimaran::sim {

class PodFileReader : public PodSource {
 public:
  struct Options {
    // Pods out of creation_time order are returned as they come instead of an error.
    bool allow_unsorted = false;
    // Duplicate pod names are errors (the whole-file parsers' check).
    bool check_unique_names = false;
  };

  // Opens `path` (".csv", or ".jsonl"/".json") and, for CSV, reads up to the header.
  static absl::StatusOr<std::unique_ptr<PodFileReader>> Open(const std::string& path,
                                                             Options options);
  static absl::StatusOr<std::unique_ptr<PodFileReader>> Open(const std::string& path) {
    return Open(path, Options{});
  }

  absl::StatusOr<std::optional<TracePod>> Next() override;

  // Lines read so far (the last pod's line after Next).
  int line() const { return line_no_; }
  // Whether every pod so far came in creation_time order.
  bool sorted() const { return first_unsorted_line_ == 0; }
  // The first pod out of order (0: none so far).
  int first_unsorted_line() const { return first_unsorted_line_; }

 private:
  PodFileReader(std::string path, bool csv, Options options)
      : path_(std::move(path)), csv_(csv), options_(options) {}
  // The next line that is not skipped, or nullopt at the end of the file.
  std::optional<std::string> NextLine();
  // Whether a pod named `name` precedes line `line_no` (a fingerprint seen twice).
  absl::StatusOr<bool> NameSeenBefore(const std::string& name, int line_no) const;

  const std::string path_;
  const bool csv_;
  const Options options_;
  std::ifstream in_;
  std::vector<std::string> header_;
  int line_no_ = 0;
  bool done_ = false;
  std::optional<double> last_creation_;
  int first_unsorted_line_ = 0;
  absl::flat_hash_set<uint64_t> fingerprints_;
};

struct PodFileSummary {
  int64_t pods = 0;
  bool sorted = true;
  int first_unsorted_line = 0;
};

// Reads the whole file once, checking it as ParsePods does (every row, unique names),
// and reports whether it is sorted by creation_time. The file's first error otherwise.
absl::StatusOr<PodFileSummary> ScanPodFile(const std::string& path);

}  // namespace trimaran::sim
