#pragma once
// TargetLoadPacking's score arithmetic (spec trimaran-and-load-watcher.md §2.4-§2.5):
// the utilisation of a node, the target curve and the score's rounding, one node at a
// time and over a batch of nodes. Every form is bit-identical to upstream's evaluation
// order (compiled with -ffp-contract=off: no fused multiply-add):
//
//   U = C != 0 ? 100 × X / C : 0        X = the predicted load (millicores or bytes)
//   s = U > T and U > 100 : 0
//       T < U <= 100      : T × (100 − U) / (100 − T)
//       U <= T            : (100 − T) × U / T + T
//   score = round(s), half away from zero (std::round)
//
// Why a batch form: at 5,000 nodes the two dependent divisions per node are most of the
// plugin's cost (issue 7: its overhead on a MostAllocated profile). TargetCurveBatch
// evaluates both branches of the curve with selects instead of a branch (scores on both
// sides of the target cost no mispredictions) and two nodes per SSE2 instruction where
// the target has SSE2 (every x86-64), so the divisions of consecutive nodes overlap.
//
// Thread-safety: pure functions.

#include <cmath>
#include <cstdint>
#include <span>

namespace trimaran::sched::plugins::tlp {

// U for predicted load `x` on capacity `c` (0 when c is 0). Inline: per node.
inline double Utilisation(double x, double c) { return c != 0 ? 100 * x / c : 0; }

// s for utilisation `u` and target `t` (both percent).
double TargetCurve(double u, double t);

// out[i] = TargetCurve(U_i, t) with U_i = capacities[i] != 0 ?
// 100 × numerators[i] / capacities[i] : 0, for every i (all three spans the same size).
void TargetCurveBatch(std::span<const double> numerators, std::span<const double> capacities,
                      double t, std::span<double> out);

// std::llround(x) (round half away from zero), bit for bit, without a libm call or a
// branch for |x| < 2^52: there i = trunc(x) is exact, and so is x − i (Sterbenz), so
// comparing the fraction with ±0.5 decides exactly as round does. No branch, because the
// scores of consecutive nodes round up or down at random. Inline: called once per node.
// Beyond 2^52 (and NaN) it is std::llround itself: no undefined float-to-int conversion
// (out of int64_t's range the value is unspecified; glibc on x86-64 gives INT64_MIN, as
// Go's int64(math.Round(x)) does on amd64).
inline int64_t RoundScore(double x) {
  if (!(std::abs(x) < 4503599627370496.0)) return std::llround(x);
  const int64_t i = static_cast<int64_t>(x);
  const double frac = x - static_cast<double>(i);
  return i + static_cast<int64_t>(frac >= 0.5) - static_cast<int64_t>(frac <= -0.5);
}

}  // namespace trimaran::sched::plugins::tlp
