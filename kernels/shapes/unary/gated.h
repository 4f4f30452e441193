// Shape inference for two element-wise maps that read a second operand along one dim:
//   glu(self, dim=-1)     the first half of `dim` times the sigmoid of the second half
//   prelu(self, weight)   x > 0 ? x : weight[c] * x, c the channel (dim 1; dim 0 of a 1-D
//                         input), weight of one element or one per channel
// Float32 and float64.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// self viewed as [outer, n, inner]: glu halves n (the output has n / 2); prelu reads weight
/// element (n == 1 ? 0 : the index along n).
struct GatedParams {
  bool glu = true;
  int input = -1, weight = -1;
  int64_t outer = 1, n = 1, inner = 1;
  DType dtype = DType::kFloat32;
};

Result<GatedParams> gated_prepare_glu(const KernelCall& call, PrepareInfo* out_info);
Result<GatedParams> gated_prepare_prelu(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
