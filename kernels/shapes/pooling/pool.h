// Shared shape inference and validation for aten::max_pool2d(_with_indices) and
// aten::adaptive_avg_pool2d. Inputs are [N, C, H, W] or unbatched [C, H, W]; kernels see
// contiguous ones as `planes` = N*C independent H x W planes.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct MaxPoolParams {
  int64_t n = 1, c = 0, h = 0, w = 0, oh = 0, ow = 0;  // n = 1 when unbatched
  std::array<int64_t, 2> kernel{1, 1}, stride{1, 1}, pad{0, 0}, dil{1, 1};
  bool ceil_mode = false;
  int input = -1;
  int64_t planes() const { return n * c; }
};

/// max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False).
/// One output size of a pooling window along a dimension: ATen's pooling_output_shape (floor
/// division, ceil-mode correction), for the 2-D and 3-D poolings.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil);

Result<MaxPoolParams> pool_prepare_max_pool2d(const KernelCall& call, PrepareInfo* out_info);
/// Same arguments; two outputs (values, int64 indices into the H*W input plane).
Result<MaxPoolParams> pool_prepare_max_pool2d_with_indices(const KernelCall& call,
                                                           PrepareInfo* out_info);

struct AdaptivePoolParams {
  int64_t n = 1, c = 0, planes = 0, h = 0, w = 0, oh = 0, ow = 0;  // planes = n * c
  int input = -1;
  bool strided = false;  // self or the output is channels-last (4-D): index through strides
};

/// adaptive_avg_pool2d(self, output_size[2]), self contiguous.
Result<AdaptivePoolParams> pool_prepare_adaptive_avg_pool2d(const KernelCall& call,
                                                            PrepareInfo* out_info);
/// The same for kernels that accept channels-last: a 4-D self may also be channels-last, and
/// the output gets channels-last strides when KernelCall::channels_last.
Result<AdaptivePoolParams> pool_prepare_adaptive_avg_pool2d_channels_last(const KernelCall& call,
                                                                          PrepareInfo* out_info);

/// adaptive_max_pool2d(self, output_size[2]) and adaptive_max_pool1d(self, output_size[1])
/// (Dims = 1: self [N, C, L] or [C, L] as planes of height 1) -> (values, int64 indices into
/// the input plane), self contiguous float32.
template <int Dims>
Result<AdaptivePoolParams> pool_prepare_adaptive_max(const KernelCall& call, PrepareInfo* out_info);

/// max_unpool2d(self, indices, output_size[2]): zeros of [N, C, *output_size] (or [C, ...])
/// with each value of self at its index into the output plane. Any stored dtype.
struct UnpoolParams {
  int input = -1, indices = -1;
  size_t elem_size = 0;
  int64_t planes = 0, in_plane = 0, out_plane = 0;
};
Result<UnpoolParams> pool_prepare_max_unpool2d(const KernelCall& call, PrepareInfo* out_info);

/// ATen's window of output index `o` along an adaptive dim: [start, end).
inline int64_t adaptive_start(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

}  // namespace tir::kernels
