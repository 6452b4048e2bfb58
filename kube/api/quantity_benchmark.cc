// Parse and String cost for the quantities found in typical pod specs. Parse runs
// several times per pod while decoding 50,000+ pods/s, so it must stay allocation-free.

#include <string>
#include <string_view>

#include "benchmark/benchmark.h"
#include "kube/api/quantity.h"

namespace trimaran::kube {
namespace {

void BM_Parse(benchmark::State& state, std::string_view text) {
  for (auto _ : state) {
    auto q = Quantity::Parse(text);
    benchmark::DoNotOptimize(q);
  }
}
BENCHMARK_CAPTURE(BM_Parse, milli, std::string_view("500m"));
BENCHMARK_CAPTURE(BM_Parse, binary, std::string_view("1Gi"));
BENCHMARK_CAPTURE(BM_Parse, integer, std::string_view("128974848"));
BENCHMARK_CAPTURE(BM_Parse, fraction, std::string_view("2.5"));
BENCHMARK_CAPTURE(BM_Parse, binary_fraction, std::string_view("1.5Gi"));
BENCHMARK_CAPTURE(BM_Parse, exponent, std::string_view("129e6"));

void BM_String(benchmark::State& state, std::string_view text) {
  const Quantity q = *Quantity::Parse(text);
  for (auto _ : state) {
    std::string s = q.String();
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK_CAPTURE(BM_String, milli, std::string_view("500m"));
BENCHMARK_CAPTURE(BM_String, binary, std::string_view("1536Mi"));
BENCHMARK_CAPTURE(BM_String, integer, std::string_view("128974848"));

}  // namespace
}  // namespace trimaran::kube
