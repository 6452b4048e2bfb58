#pragma once
// The Beta distribution helpers of LowRiskOverCommitment (spec §4 "Beta helpers";
// upstream lowriskovercommitment/beta.go, which uses gonum's Cephes-derived RegIncBeta).
//
//   BetaDistribution d(alpha, beta);   valid() iff alpha > 0 and beta > 0
//   d.Cdf(x)   I_x(alpha, beta): NaN for invalid parameters or x outside [0, 1] is
//              mapped to 0; exactly 0 at x = 0 and 1 at x = 1
//   d.Pdf(x)   x^(a-1)(1-x)^(b-1)/B(a, b); NaN or negative -> 0
//   moments    E1 = a/(a+b), E2 = E1(a+1)/(a+b+1), E3 = E2(a+2)/(a+b+2), var = E2 - E1²
//   MatchMoments(m1, m2): fit by moments (v = m2 - m1²; fails when m1 ∉ [0, 1], v < 0 or
//              v >= m1(1-m1)); t = max(m1(1-m1)/v - 1, smallest positive double),
//              a = m1·t, b = (1-m1)·t. Returns success only if the object was valid
//              before (upstream does not recompute the flag).
//   ToString   "BetaDistribution: alpha = %f; beta = %f; mean = %f; var = %f; m1 = %f;
//              m2 = %f; m3 = %f; "
//
// RegIncBeta is our own implementation (continued fraction, modified Lentz, with the
// symmetry I_x(a,b) = 1 - I_{1-x}(b,a) for x > (a+1)/(a+b+2)); it agrees with gonum to
// about 1e-12 on the ranges LRO produces (tests use 1e-9).
//
// Thread-safety: a value type; pure functions.

#include <string>

namespace trimaran::sched::plugins::lro {

// I_x(a, b); NaN for a <= 0, b <= 0 or x outside [0, 1].
double RegIncBeta(double a, double b, double x);

class BetaDistribution {
 public:
  BetaDistribution() = default;
  BetaDistribution(double alpha, double beta);

  bool valid() const { return valid_; }
  double alpha() const { return alpha_; }
  double beta() const { return beta_; }
  double Mean() const;
  double Variance() const;
  double Cdf(double x) const;
  double Pdf(double x) const;
  bool MatchMoments(double m1, double m2);
  std::string ToString() const;

 private:
  double alpha_ = 0;
  double beta_ = 0;
  bool valid_ = false;
};

// Probability that utilisation <= x under a Beta fitted to (mu, sigma) (spec §4
// ComputeProbability). `dist_out`, when non-null, receives the fitted distribution and
// `*has_dist` whether there is one.
double ComputeProbability(double mu, double sigma, double x, BetaDistribution* dist_out,
                          bool* has_dist);

}  // namespace trimaran::sched::plugins::lro
