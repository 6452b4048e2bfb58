// Fuzzes the load watcher's /watcher JSON decoder (loadwatcher/json.h,
// DecodeWatcherMetricsJson): what the remote watcher client reads from a watcher it
// does not control, in either wire form (gojay or Go encoding/json).
//
// Invariants, for every document the decoder accepts:
//   - a host listed twice is in duplicate_hosts (once) and not in the map;
//   - decode(encode(x)) == x up to what the wire form cannot carry: the encoder writes
//     every field and floats as shortest round-trip decimals, so the trip is exact,
//     except that a non-finite value (NaN/Infinity, accepted from a broken backend) is
//     written as null and so dropped, and duplicate_hosts is bookkeeping, not wire form;
//   - the chunked encoder hands over exactly the bytes of the one-piece encoder, for a
//     chunk size taken from the input.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_util.h"
#include "loadwatcher/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::lw;  // NOLINT(build/namespaces): a fuzzer entry point
  const absl::string_view json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<WatcherMetrics> decoded = DecodeWatcherMetricsJson(json);
  if (!decoded.ok()) return 0;

  const std::vector<std::string>& duplicates = decoded->data.duplicate_hosts;
  for (size_t i = 0; i < duplicates.size(); ++i) {
    FUZZ_CHECK(!decoded->data.node_metrics_map.contains(duplicates[i])) << duplicates[i];
    FUZZ_CHECK(std::count(duplicates.begin(), duplicates.end(), duplicates[i]) == 1)
        << duplicates[i];
  }

  WatcherMetrics expected = *decoded;
  expected.data.duplicate_hosts.clear();
  for (auto& [host, node] : expected.data.node_metrics_map) {
    std::erase_if(node.metrics, [](const Metric& m) { return !std::isfinite(m.value); });
  }
  const std::string encoded = EncodeWatcherMetricsJson(*decoded);
  absl::StatusOr<WatcherMetrics> again = DecodeWatcherMetricsJson(encoded);
  FUZZ_CHECK(again.ok()) << "the encoder's output does not decode: " << again.status() << "\n"
                         << encoded;
  FUZZ_CHECK(*again == expected) << "decode(encode(x)) != x\n" << encoded;

  const size_t chunk_bytes = 1 + (size > 0 ? data[0] : 0);
  std::string chunked;
  const bool complete =
      EncodeWatcherMetricsJsonChunked(*decoded, chunk_bytes, [&](absl::string_view piece) {
        chunked.append(piece.data(), piece.size());
        return true;
      });
  FUZZ_CHECK(complete && chunked == encoded)
      << "chunked encoding (chunk " << chunk_bytes << ") differs\n"
      << chunked << "\n"
      << encoded;
  return 0;
}
