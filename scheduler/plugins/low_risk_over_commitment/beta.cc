#include "scheduler/plugins/low_risk_over_commitment/beta.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace trimaran::sched::plugins::lro {
namespace {

double LogBeta(double a, double b) {
  int sign = 0;
  return lgamma_r(a, &sign) + lgamma_r(b, &sign) - lgamma_r(a + b, &sign);
}

// Continued fraction for I_x(a, b) (modified Lentz), valid for x < (a+1)/(a+b+2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  constexpr int kMaxIterations = 200000;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double RegIncBeta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return 0;
  if (x == 1) return 1;
  const double log_front = a * std::log(x) + b * std::log1p(-x) - LogBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) {
    return std::exp(log_front) * BetaContinuedFraction(a, b, x) / a;
  }
  return 1 - std::exp(log_front) * BetaContinuedFraction(b, a, 1 - x) / b;
}

BetaDistribution::BetaDistribution(double alpha, double beta)
    : alpha_(alpha), beta_(beta), valid_(alpha > 0 && beta > 0) {}

double BetaDistribution::Mean() const { return alpha_ / (alpha_ + beta_); }

double BetaDistribution::Variance() const {
  const double e1 = Mean();
  const double e2 = e1 * (alpha_ + 1) / (alpha_ + beta_ + 1);
  return e2 - e1 * e1;
}

double BetaDistribution::Cdf(double x) const {
  const double v = RegIncBeta(alpha_, beta_, x);
  if (std::isnan(v) || v < 0 || v > 1) return 0;
  return v;
}

double BetaDistribution::Pdf(double x) const {
  if (!valid_ || !(x >= 0 && x <= 1)) return 0;
  const double v =
      std::pow(x, alpha_ - 1) * std::pow(1 - x, beta_ - 1) / std::exp(LogBeta(alpha_, beta_));
  if (std::isnan(v) || v < 0) return 0;
  return v;
}

bool BetaDistribution::MatchMoments(double m1, double m2) {
  const double v = m2 - m1 * m1;
  if (m1 < 0 || m1 > 1 || v < 0 || v >= m1 * (1 - m1)) return false;
  const double t = std::max(m1 * (1 - m1) / v - 1, std::numeric_limits<double>::denorm_min());
  alpha_ = m1 * t;
  beta_ = (1 - m1) * t;
  return valid_;
}

std::string BetaDistribution::ToString() const {
  const double e1 = Mean();
  const double e2 = e1 * (alpha_ + 1) / (alpha_ + beta_ + 1);
  const double e3 = e2 * (alpha_ + 2) / (alpha_ + beta_ + 2);
  return absl::StrFormat(
      "BetaDistribution: alpha = %f; beta = %f; mean = %f; var = %f; m1 = %f; m2 = %f; "
      "m3 = %f; ",
      alpha_, beta_, e1, e2 - e1 * e1, e1, e2, e3);
}

double ComputeProbability(double mu, double sigma, double x, BetaDistribution* dist_out,
                          bool* has_dist) {
  *has_dist = false;
  if (mu == 0 || (sigma == 0 && mu <= x)) return 1;
  if (sigma == 0 && mu > x) return 0;
  BetaDistribution dist(1, 1);
  if (!dist.MatchMoments(mu, sigma * sigma + mu * mu)) return 0;
  *has_dist = true;
  if (dist_out != nullptr) *dist_out = dist;
  return dist.Cdf(x);
}

}  // namespace trimaran::sched::plugins::lro
