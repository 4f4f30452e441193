// Shared shape inference and validation for 2-D aten::conv2d and aten::convolution.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// NCHW input, OIHW weight (I = C / groups), optional bias [OC].
struct ConvParams {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t oc = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::array<int64_t, 2> stride{1, 1}, pad{0, 0}, dil{1, 1};
  int64_t groups = 1;
  int input = -1, weight = -1, bias = -1;  // indices into KernelCall::inputs; bias -1 = none
};

/// conv2d(input, weight, bias?, stride, padding, dilation, groups); input may be unbatched.
Result<ConvParams> conv_prepare_conv2d(const KernelCall& call, PrepareInfo* out_info);
/// convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding,
/// groups); only 2-D, non-transposed.
Result<ConvParams> conv_prepare_convolution(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
