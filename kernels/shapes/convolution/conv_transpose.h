// Shape inference for transposed convolutions: aten::conv_transpose1d, conv_transpose2d.input
// and conv_transpose3d.input (the importer gives the core IR's convolution(transposed=True)
// these names, so the passes that fuse into and re-lay convolutions never see one).
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// input [N, C, *in] (or unbatched [C, *in]), weight [C, OC/groups, *k], bias [OC]; output
/// [N, OC, *out] with out = (in - 1) * stride - 2 * padding + dilation * (k - 1) +
/// output_padding + 1 per spatial dim (1 to 3 of them).
struct ConvTransposeParams {
  int spatial = 2;
  int64_t n = 1, c = 0, oc = 0, groups = 1;
  std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, out{1, 1, 1};  // D, H, W (unused ones 1)
  std::array<int64_t, 3> stride{1, 1, 1}, pad{0, 0, 0}, dil{1, 1, 1};
  int input = -1, weight = -1, bias = -1;  // indices into KernelCall::inputs; bias -1 = none
};

/// conv_transpose{1d,2d.input,3d.input}(input, weight, bias?, stride, padding,
/// output_padding, groups, dilation).
Result<ConvTransposeParams> conv_prepare_transpose(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
