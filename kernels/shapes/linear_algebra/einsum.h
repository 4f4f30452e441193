// Shape inference for aten::einsum(equation, tensors, path=None): any number of operands,
// labels a-z and A-Z, "..." (broadcast on the right across operands), a label repeated in one
// operand (its diagonal), size-1 dims broadcast, implicit output (no "->": the ellipsis dims,
// then the labels that appear once, in alphabetical order). Every label becomes one loop:
// the output's labels outside, the summed ones inside (kernels/reference/linear_algebra).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

struct EinsumParams {
  std::vector<int64_t> size;                 // per label (ellipsis dims are labels too)
  std::vector<int> out_labels, sum_labels;   // loops: the output's, in order; then the summed
  std::vector<int> inputs;                   // KernelCall::inputs index per operand
  std::vector<std::vector<int64_t>> stride;  // per operand, per label (0: absent or broadcast)
  DType dtype = DType::kFloat32;
  /// out = alpha * sum + beta * added, `added` (KernelCall::inputs index, -1: none) broadcast
  /// to the output with strides `added_stride` per label: addmv, addr, bilinear's bias.
  int added = -1;
  std::vector<int64_t> added_stride;
  double alpha = 1, beta = 1;
};

Result<EinsumParams> einsum_prepare(const KernelCall& call, PrepareInfo* out_info);
/// The plan of `equation` over the tensors `slots` (KernelCall::inputs indices), for ops that
/// are a fixed einsum (kernels/shapes/linear_algebra/contraction.h); sets outputs[0].
Result<EinsumParams> einsum_plan(const KernelCall& call, std::string_view equation,
                                 std::span<const int64_t> slots);

}  // namespace tir::kernels
