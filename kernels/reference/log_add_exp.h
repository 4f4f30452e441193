// log(exp(a) + exp(b)) for the reference kernels (logaddexp, logcumsumexp), in double: from
// the larger operand, exact where one is -inf (an empty sum) or both are the same infinity;
// NaN in, NaN out.
#pragma once

#include <algorithm>
#include <cmath>

namespace tir::kernels {

inline double log_add_exp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const double m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

}  // namespace tir::kernels
