// Distribution checks for random ops (tests/kernels/random_test.cc,
// tests/runtime/random_program_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace tir::testing {

/// The sample mean and variance of `v` within ~5 standard errors of `mean` and `var`
/// (normal-ish tails).
inline void expect_moments(const std::vector<double>& v, double mean, double var) {
  const double n = double(v.size());
  const double m = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double s2 = 0;
  for (double x : v) s2 += (x - m) * (x - m);
  s2 /= n - 1;
  EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n));
  EXPECT_NEAR(s2, var, 5 * var * std::sqrt(2.0 / n));
}

}  // namespace tir::testing
