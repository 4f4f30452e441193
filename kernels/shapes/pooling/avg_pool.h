// Shared shape inference for float32 average pooling: 1-D, 2-D and 3-D, ceil_mode,
// count_include_pad, divisor_override.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct AvgPoolParams {
  int dims = 2;  // spatial dims: 1, 2 or 3
  int input = -1;
  int64_t planes = 0;  // N * C
  std::array<int64_t, 3> in{}, out{}, kernel{}, stride{}, pad{};
  bool count_include_pad = true;
  int64_t divisor = 0;  // 0: none
};
/// avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode, count_include_pad,
/// divisor_override?); avg_pool1d (no divisor_override) and avg_pool3d likewise. Batched or
/// unbatched.
template <int Dims>
Result<AvgPoolParams> avg_pool_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
