// Scalar formulas of the element-wise losses torch's training IR keeps as ops of their own
// (run_decompositions() writes them out): each a function of one input element x, its target
// y and a parameter (beta, delta), in double. The reduction (none, mean, sum) is applied by the
// kernel (kernels/reference/reduction/loss.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tir::kernels::ops {

enum class LossKind : uint8_t { kMse, kL1, kSmoothL1, kHuber, kBce, kBceLogits, kKlDiv };

/// torch's `reduction` argument (at::Reduction).
enum class LossReduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

/// The loss of one element. `p`: beta (smooth_l1), delta (huber), log_target (kl_div, 0/1).
inline double loss(LossKind k, double x, double y, double p) {
  const double d = x - y;
  switch (k) {
    case LossKind::kMse:
      return d * d;
    case LossKind::kL1:
      return std::abs(d);
    case LossKind::kSmoothL1:
      if (p == 0) return std::abs(d);
      return std::abs(d) < p ? 0.5 * d * d / p : std::abs(d) - 0.5 * p;
    case LossKind::kHuber:
      return std::abs(d) < p ? 0.5 * d * d : p * (std::abs(d) - 0.5 * p);
    case LossKind::kBce:  // torch clamps each log at -100 so that x = 0 or 1 stays finite
      return -(y * std::max(std::log(x), -100.0) + (1 - y) * std::max(std::log1p(-x), -100.0));
    case LossKind::kBceLogits: {  // (1 - y) x + log(1 + exp(-x)), without overflow
      const double m = std::max(-x, 0.0);
      return (1 - y) * x + m + std::log(std::exp(-m) + std::exp(-x - m));
    }
    case LossKind::kKlDiv:
      if (p != 0) return std::exp(y) * (y - x);
      return (y > 0 ? y * std::log(y) : (y == 0 ? 0.0 : std::nan(""))) - y * x;
  }
  return 0;
}

}  // namespace tir::kernels::ops
