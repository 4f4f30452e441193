// Shared shape inference and validation for aten::conv1d, conv2d, conv3d and convolution.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// NCHW input, OIHW weight (I = C / groups), optional bias [OC]. A 3-D convolution (NCDHW
/// input, OIDHW weight) has `three_d` set and its depth in d, kd, od and the *_d fields; a 1-D
/// or 2-D one has d = kd = od = 1 there.
struct ConvParams {
  DType dtype = DType::kFloat32;  // of input, weight, bias and output: float32 or float64
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t oc = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::array<int64_t, 2> stride{1, 1}, pad{0, 0}, dil{1, 1};  // along H, W
  bool three_d = false;
  int64_t d = 1, kd = 1, od = 1, stride_d = 1, pad_d = 0, dil_d = 1;
  int64_t groups = 1;
  int input = -1, weight = -1, bias = -1;  // indices into KernelCall::inputs; bias -1 = none
};

/// conv2d(input, weight, bias?, stride, padding, dilation, groups); input may be unbatched.
/// Both prepares also validate KernelCall::batch_norm (batched input, its tensors float32,
/// contiguous, [OC]) and KernelCall::residual (batched, float32, contiguous, the output's
/// shape).
Result<ConvParams> conv_prepare_conv2d(const KernelCall& call, PrepareInfo* out_info);
/// conv3d(input, weight, bias?, stride, padding, dilation, groups); input may be unbatched.
Result<ConvParams> conv_prepare_conv3d(const KernelCall& call, PrepareInfo* out_info);
/// convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding,
/// groups); 1-D, 2-D or 3-D, non-transposed.
Result<ConvParams> conv_prepare_convolution(const KernelCall& call, PrepareInfo* out_info);

/// Output channel `oc` of the folded batch norm as y * scale + shift (in double):
/// scale = weight / sqrt(var + eps), shift = bias - mean * scale. Identity when absent.
struct ChannelAffine {
  double scale = 1, shift = 0;
};
ChannelAffine conv_batch_norm_channel(const KernelCall& call, int64_t oc);

}  // namespace tir::kernels
