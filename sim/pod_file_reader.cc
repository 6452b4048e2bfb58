#include "sim/pod_file_reader.h"

#include <utility>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace trimaran::sim {
namespace {

uint64_t Fingerprint(absl::string_view name) { return absl::HashOf(name); }

}  // namespace

absl::StatusOr<std::unique_ptr<PodFileReader>> PodFileReader::Open(const std::string& path,
                                                                   Options options) {
  bool csv = false;
  if (absl::EndsWith(path, ".csv")) {
    csv = true;
  } else if (!absl::EndsWith(path, ".jsonl") && !absl::EndsWith(path, ".json")) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": unknown pods format (expected a .csv or .jsonl file)"));
  }
  std::unique_ptr<PodFileReader> r(new PodFileReader(path, csv, options));
  r->in_.open(path, std::ios::binary);
  if (!r->in_) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open file"));
  if (csv) {
    std::optional<std::string> line = r->NextLine();
    // As ParsePodsCsv: the line after the last newline counts.
    if (!line.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", r->line_no_, ": no header row"));
    }
    TRIMARAN_ASSIGN_OR_RETURN(r->header_, ParsePodsCsvHeader(*line, path, r->line_no_));
  }
  return r;
}

std::optional<std::string> PodFileReader::NextLine() {
  if (done_) return std::nullopt;
  std::string line;
  while (true) {
    if (!std::getline(in_, line)) {
      // Nothing after the last '\n' (or an empty file): the whole-file parsers count
      // that empty piece as one more line.
      ++line_no_;
      done_ = true;
      return std::nullopt;
    }
    ++line_no_;
    absl::string_view view(line);
    absl::ConsumeSuffix(&view, "\r");
    if (IsSkippedPodsLine(view, csv_)) {
      if (in_.eof()) {
        done_ = true;
        return std::nullopt;
      }
      continue;
    }
    if (in_.eof()) done_ = true;  // the last line, without a '\n'
    return std::string(view);
  }
}

absl::StatusOr<std::optional<TracePod>> PodFileReader::Next() {
  std::optional<std::string> line = NextLine();
  if (!line.has_value()) {
    if (in_.bad()) return absl::DataLossError(absl::StrCat(path_, ": read error"));
    return std::nullopt;
  }
  absl::StatusOr<TracePod> pod = csv_ ? ParsePodsCsvRow(header_, *line, path_, line_no_)
                                      : ParsePodsJsonlLine(*line, path_, line_no_);
  if (!pod.ok()) {
    done_ = true;
    return pod.status();
  }
  if (options_.check_unique_names && !fingerprints_.insert(Fingerprint(pod->name)).second) {
    TRIMARAN_ASSIGN_OR_RETURN(bool seen, NameSeenBefore(pod->name, line_no_));
    if (seen) {
      done_ = true;
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ":", line_no_, ": name: duplicate pod \"", pod->name, "\""));
    }
  }
  if (last_creation_.has_value() && pod->creation_time < *last_creation_) {
    if (first_unsorted_line_ == 0) first_unsorted_line_ = line_no_;
    if (!options_.allow_unsorted) {
      done_ = true;
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ":", line_no_, ": creation_time: ", pod->creation_time,
                       " is before the previous pod's ", *last_creation_,
                       " (the file is not sorted by creation_time; it cannot be streamed)"));
    }
  }
  if (!last_creation_.has_value() || pod->creation_time > *last_creation_) {
    last_creation_ = pod->creation_time;
  }
  return std::optional<TracePod>(*std::move(pod));
}

absl::StatusOr<bool> PodFileReader::NameSeenBefore(const std::string& name, int line_no) const {
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<PodFileReader> again,
                            Open(path_, {.allow_unsorted = true, .check_unique_names = false}));
  while (true) {
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<TracePod> pod, again->Next());
    if (!pod.has_value() || pod->line >= line_no) return false;
    if (pod->name == name) return true;
  }
}

absl::StatusOr<PodFileSummary> ScanPodFile(const std::string& path) {
  TRIMARAN_ASSIGN_OR_RETURN(
      std::unique_ptr<PodFileReader> r,
      PodFileReader::Open(path, {.allow_unsorted = true, .check_unique_names = true}));
  PodFileSummary summary;
  while (true) {
    TRIMARAN_ASSIGN_OR_RETURN(std::optional<TracePod> pod, r->Next());
    if (!pod.has_value()) break;
    ++summary.pods;
  }
  summary.sorted = r->sorted();
  summary.first_unsorted_line = r->first_unsorted_line();
  return summary;
}

}  // namespace trimaran::sim
