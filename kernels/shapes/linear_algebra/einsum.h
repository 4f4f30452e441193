// Shape inference for aten::einsum(equation, tensors, path=None): any number of operands,
// labels a-z and A-Z, "..." (broadcast on the right across operands), a label repeated in one
// operand (its diagonal), size-1 dims broadcast, implicit output (no "->": the ellipsis dims,
// then the labels that appear once, in alphabetical order). Every label becomes one loop:
// the output's labels outside, the summed ones inside (kernels/reference/linear_algebra).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

struct EinsumParams {
  std::vector<int64_t> size;                 // per label (ellipsis dims are labels too)
  std::vector<int> out_labels, sum_labels;   // loops: the output's, in order; then the summed
  std::vector<int> inputs;                   // KernelCall::inputs index per operand
  std::vector<std::vector<int64_t>> stride;  // per operand, per label (0: absent or broadcast)
  DType dtype = DType::kFloat32;
};

Result<EinsumParams> einsum_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
