// Shared shape inference for float32 spatial ops: average pooling (1-D, 2-D and 3-D, ceil_mode,
// count_include_pad, divisor_override), nearest and bilinear upsampling (output size or
// scale factors, align_corners) and group normalisation.
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
Result<AvgPoolParams> spatial_prepare_avg_pool(const KernelCall& call, PrepareInfo* out_info);

struct UpsampleParams {
  bool bilinear = false;
  bool align_corners = false;
  int input = -1;
  int64_t planes = 0;
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
  double scale_h = 0, scale_w = 0;  // given scale factors (0: none)
};
/// upsample_nearest2d.vec(input, output_size?, scale_factors?),
/// upsample_nearest2d(self, output_size, scales_h?, scales_w?).
template <bool Vec>
Result<UpsampleParams> spatial_prepare_nearest(const KernelCall& call, PrepareInfo* out_info);
/// upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?),
/// upsample_bilinear2d(self, output_size, align_corners, scales_h?, scales_w?).
template <bool Vec>
Result<UpsampleParams> spatial_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info);

struct GroupNormParams {
  int input = -1, weight = -1, bias = -1;
  int64_t n = 0, c = 0, hw = 0, groups = 1;
  double eps = 1e-5;
  bool stats = false;  // native_group_norm: also writes mean and rstd [N, groups]
};
/// native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out, mean, rstd).
Result<GroupNormParams> spatial_prepare_native_group_norm(const KernelCall& call,
                                                          PrepareInfo* out_info);
/// group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled).
Result<GroupNormParams> spatial_prepare_group_norm(const KernelCall& call, PrepareInfo* out_info);

/// _weight_norm(v, g, dim=0): v * g / ||v||, the norm over every dim but `dim` (dim -1:
/// over all of v).
struct WeightNormParams {
  int v = -1, g = -1;
  int64_t outer = 1, n = 1, inner = 1;  // v as [outer, n, inner], n along dim
};
Result<WeightNormParams> spatial_prepare_weight_norm(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
