// Shared shape inference and validation for masked_fill.Scalar / .Tensor (self, mask, value):
// value a scalar or 0-d tensor; the result has self's dtype and the broadcast shape of self and
// mask. self may be bool, int32, int64, float32 or float64.
#pragma once

#include <array>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

/// out = mask ? value : self, broadcast by `plan` over self (operands[0]) and mask
/// (operands[1]); operands[2] is the value, read at run time when it is a 0-d tensor.
struct MaskedFillParams {
  std::array<Operand, 3> operands{};
  NaryPlan plan;
  DType dtype = DType::kUndefined;  // self's and the output's
};

Result<MaskedFillParams> masked_fill_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
