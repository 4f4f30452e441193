// Scalar formulas of the special functions torch exposes as unary ops (torch.special and
// Tensor methods): erfinv, lgamma, digamma, polygamma, i0. Written once, in double, for every
// backend (the reference kernels call them; kernels/reference/unary/special.cc). Plain C++
// with <cmath> only. Values at poles and outside the domain follow torch: digamma(0) = -inf,
// digamma of a negative integer NaN, erfinv(+-1) = +-inf, erfinv outside [-1, 1] NaN.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace tir::kernels::ops {

enum class SpecialKind : uint8_t { kErfinv, kLgamma, kDigamma, kPolygamma, kI0 };

/// erf^-1(y): a closed-form first guess (Winitzki's approximation of erf), then Newton steps
/// on erf, which converge quadratically from it to double precision.
inline double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y == -1) return -std::numeric_limits<double>::infinity();
  if (y == 0) return y;  // keeps -0.0
  constexpr double a = 0.147;
  const double l = std::log1p(-y * y);
  const double t = 2 / (std::numbers::pi * a) + l / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), y);
  for (int i = 0; i < 4; ++i) {
    const double slope = 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x);
    if (slope == 0) break;
    const double step = (std::erf(x) - y) / slope;
    x -= step;
    if (std::abs(step) <= 1e-17 * std::abs(x)) break;
  }
  return x;
}

/// psi(x) = d/dx log Gamma(x): the reflection formula below 0, the recurrence
/// psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series in 1/x^2.
inline double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    return digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  }
  if (std::isinf(x)) return x;
  double acc = 0;
  for (; x < 10; x += 1) acc -= 1 / x;
  const double r = 1 / (x * x);
  // Bernoulli numbers: B2/2 = 1/12, B4/4 = -1/120, B6/6 = 1/252, B8/8 = -1/240, B10/10 = 1/132
  const double series =
      r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))));
  return acc + std::log(x) - 0.5 / x - series;
}

/// The Hurwitz zeta function zeta(s, x) = sum_k (x + k)^-s for s > 1, x > 0: ten terms, then
/// the Euler-Maclaurin tail.
inline double hurwitz_zeta(double s, double x) {
  constexpr int kTerms = 10;
  double sum = 0;
  for (int k = 0; k < kTerms; ++k) sum += std::pow(x + k, -s);
  const double a = x + kTerms;
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  // B_{2j} / (2j)!, j = 1..6
  constexpr double kB[] = {1.0 / 12,       -1.0 / 720,     1.0 / 30240,
                           -1.0 / 1209600, 1.0 / 47900160, -691.0 / 1307674368000};
  double rising = s;  // s (s + 1) ... (s + 2j - 2)
  double power = std::pow(a, -s - 1);
  for (int j = 0; j < 6; ++j) {
    sum += kB[j] * rising * power;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= a * a;
  }
  return sum;
}

/// psi^(n)(x): digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x), with the reflection-free
/// recurrence for x <= 0 left to NaN/inf as torch gives at poles.
inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::infinity();
  double shift = 0;  // psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)
  double factorial = 1;
  for (int64_t k = 2; k <= n; ++k) factorial *= double(k);
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  for (; x < 1; x += 1) shift += sign * factorial / std::pow(x, double(n + 1));
  return shift + sign * factorial * hurwitz_zeta(double(n + 1), x);
}

/// I0(x), the modified Bessel function of the first kind of order 0: its power series
/// sum_k ((x/2)^k / k!)^2, whose terms are all positive (no cancellation).
inline double bessel_i0(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return std::numeric_limits<double>::infinity();
  const double q = x * x / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 1000; ++k) {
    term *= q / (double(k) * double(k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

inline double special(SpecialKind kind, double x, int64_t n = 0) {
  switch (kind) {
    case SpecialKind::kErfinv:
      return erfinv(x);
    case SpecialKind::kLgamma:
      return std::lgamma(x);
    case SpecialKind::kDigamma:
      return digamma(x);
    case SpecialKind::kPolygamma:
      return polygamma(n, x);
    case SpecialKind::kI0:
      return bessel_i0(x);
  }
  return x;
}

}  // namespace tir::kernels::ops
