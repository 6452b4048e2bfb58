#include "scheduler/plugins/target_load_packing/curve.h"

#include <bit>
#include <cmath>
#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/check.h"

namespace trimaran::sched::plugins::tlp {
namespace {

// c ? a : b by bit masks, so that the compiler emits no branch.
inline double Select(bool c, double a, double b) {
  const uint64_t mask = uint64_t{0} - static_cast<uint64_t>(c);
  return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & mask) |
                               (std::bit_cast<uint64_t>(b) & ~mask));
}

// Both branches with selected operands. Adding +0.0 in the hot branch changes nothing:
// T × (100 − U) / (100 − T) >= +0 when U <= 100 (and U > 100 selects 0 anyway).
inline double Curve(double u, double t) {
  const bool hot = u > t;
  const double num = Select(hot, t * (100 - u), (100 - t) * u);
  const double den = Select(hot, 100 - t, t);
  const double s = num / den + Select(hot, 0.0, t);
  return Select(hot && u > 100, 0.0, s);
}

}  // namespace

double TargetCurve(double u, double t) { return Curve(u, t); }

void TargetCurveBatch(std::span<const double> numerators, std::span<const double> capacities,
                      double t, std::span<double> out) {
  TRIMARAN_DCHECK(numerators.size() == capacities.size() && out.size() == capacities.size());
  const size_t n = out.size();
  size_t i = 0;
#if defined(__SSE2__)
  // The scalar Curve two lanes at a time; every operation is the same IEEE operation
  // in the same order, so each lane is bit-identical to Curve(Utilisation(x, c), t).
  const __m128d k100 = _mm_set1_pd(100);
  const __m128d kt = _mm_set1_pd(t);
  const __m128d k100_minus_t = _mm_set1_pd(100 - t);
  const __m128d kone = _mm_set1_pd(1);
  const __m128d kzero = _mm_setzero_pd();
  auto select = [](__m128d mask, __m128d a, __m128d b) {
    return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
  };
  for (; i + 2 <= n; i += 2) {
    const __m128d x = _mm_loadu_pd(numerators.data() + i);
    const __m128d c = _mm_loadu_pd(capacities.data() + i);
    // U = c != 0 ? 100 × x / c : +0 (lanes with c == 0 divide by 1, then are zeroed).
    const __m128d nonzero = _mm_cmpneq_pd(c, kzero);
    const __m128d u =
        _mm_and_pd(nonzero, _mm_div_pd(_mm_mul_pd(k100, x), select(nonzero, c, kone)));
    const __m128d hot = _mm_cmpgt_pd(u, kt);
    const __m128d num =
        select(hot, _mm_mul_pd(kt, _mm_sub_pd(k100, u)), _mm_mul_pd(k100_minus_t, u));
    const __m128d den = select(hot, k100_minus_t, kt);
    const __m128d s = _mm_add_pd(_mm_div_pd(num, den), _mm_andnot_pd(hot, kt));
    const __m128d over = _mm_and_pd(hot, _mm_cmpgt_pd(u, k100));
    _mm_storeu_pd(out.data() + i, _mm_andnot_pd(over, s));
  }
#endif
  for (; i < n; ++i) out[i] = Curve(Utilisation(numerators[i], capacities[i]), t);
}

}  // namespace trimaran::sched::plugins::tlp
