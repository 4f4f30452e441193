// Shared shape inference for float32 nearest and bilinear upsampling (output size or scale
// factors, align_corners).
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

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
Result<UpsampleParams> upsample_prepare_nearest(const KernelCall& call, PrepareInfo* out_info);
/// upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?),
/// upsample_bilinear2d(self, output_size, align_corners, scales_h?, scales_w?).
template <bool Vec>
Result<UpsampleParams> upsample_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
