// Eigen helpers shared by the optimized element-wise kernels.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "kernels/cpu/parallel.h"

namespace tir::kernels {

using ArrF = Eigen::Map<Eigen::ArrayXf>;
using CArrF = Eigen::Map<const Eigen::ArrayXf>;

/// y[i] = f(x)[i] over n floats, as Eigen array expressions on OpenMP chunks of `grain`.
template <typename F>
void eigen_unary(const float* x, float* y, int64_t n, int64_t grain, F f) {
  parallel_chunks(n, grain,
                  [&](int64_t b, int64_t e) { ArrF(y + b, e - b) = f(CArrF(x + b, e - b)); });
}

}  // namespace tir::kernels
