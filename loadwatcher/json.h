#pragma once
// paypal/load-watcher's JSON wire format for WatcherMetrics (spec §5.2).
//
// Encoding produces the form the upstream service writes (gojay, field order): every
// key always present (`rollup`, `operator`, `dataCenter` even when empty, `tags` as {},
// an empty metrics list as [], an empty map as {}), no whitespace, floats as the
// shortest decimal that round-trips and never in exponent notation (26,
// 33.333333333333336, 0.0000001). Hosts are written in NodeMetricsMap order (sorted),
// which is compatible because upstream's order is unspecified. A non-finite value
// (NaN/Inf, which JSON cannot carry and upstream would write as invalid JSON) is
// written as null; the Watcher drops such metrics before they get here.
//
// Decoding accepts both that form and Go encoding/json's (used by upstream's tests):
// missing `rollup`/`metrics`/`tags`/`metadata`, `"metadata":{}`, `"NodeMetricsMap":null`
// and `"metrics":null` all decode to empty values. Keys are case-sensitive, unknown keys
// are ignored. A metric whose value is null is dropped. Anything else that does not fit
// the schema (not JSON, wrong types) is an error naming the offending path; kInternal,
// per the project's "bad JSON from our parser" rule. Never crashes on any input.
//
// Thread-safety: pure functions.

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "loadwatcher/metrics.h"

namespace trimaran::lw {

// The upstream (gojay) wire form of `metrics`.
std::string EncodeWatcherMetricsJson(const WatcherMetrics& metrics);
// Appends the same to `*out` (lets a server reuse a buffer).
void AppendWatcherMetricsJson(const WatcherMetrics& metrics, std::string* out);
// The same bytes handed to `sink` in pieces of about `chunk_bytes` (a piece ends after
// a host, so one can be larger), without ever holding the whole body: GET /watcher
// streams 5,000 nodes (2.6 MB) this way. Stops and returns false as soon as `sink`
// does; true once everything was handed over.
bool EncodeWatcherMetricsJsonChunked(const WatcherMetrics& metrics, size_t chunk_bytes,
                                     absl::FunctionRef<bool(absl::string_view)> sink);

// Parses either wire form (see above).
absl::StatusOr<WatcherMetrics> DecodeWatcherMetricsJson(absl::string_view json);

// Appends `value` as upstream formats a float64 (Go strconv 'f', -1): shortest
// round-trip digits, no exponent. Non-finite values append "null".
void AppendJsonDouble(double value, std::string* out);

// Appends `s` as a JSON string literal, quotes included.
void AppendJsonString(absl::string_view s, std::string* out);

}  // namespace trimaran::lw
