// Shared shape inference for 3-D pooling: aten::_adaptive_avg_pool3d, aten::max_pool3d and
// aten::max_pool3d_with_indices. Inputs are [N, C, D, H, W] or unbatched [C, D, H, W];
// kernels see contiguous ones as `planes` = N*C independent D x H x W volumes.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct Pool3dParams {
  int input = -1;
  int64_t planes = 0;
  std::array<int64_t, 3> in{}, out{};
  // max pooling only
  std::array<int64_t, 3> kernel{1, 1, 1}, stride{1, 1, 1}, pad{}, dil{1, 1, 1};
};

/// _adaptive_avg_pool3d(self, output_size[3]).
/// adaptive_avg_pool1d(self, output_size[1]) over [N, C, L] or [C, L], as 1 x 1 x L volumes.
Result<Pool3dParams> pool3d_prepare_adaptive_avg1d(const KernelCall& call, PrepareInfo* out_info);
Result<Pool3dParams> pool3d_prepare_adaptive_avg(const KernelCall& call, PrepareInfo* out_info);
/// max_pool3d_with_indices(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode)
/// -> (values, int64 indices into the D*H*W input volume).
Result<Pool3dParams> pool3d_prepare_max_with_indices(const KernelCall& call, PrepareInfo* out_info);
/// max_pool3d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode) -> values.
Result<Pool3dParams> pool3d_prepare_max(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
