// Shared shape inference and dtype rules for the binary math with torch's type promotion:
// atan2, fmod, remainder, maximum, minimum, floor/trunc division, pow with a scalar base,
// logical and bitwise ops, add/sub/mul on int32 and bool, clamp with tensor bounds, and the
// ternary addcmul, addcdiv and lerp.
// Operands may be tensors of bool, int32, int64, float32 or float64, or Python scalars where
// the schema has a Scalar. The unary math is kernels/shapes/unary/math.h.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/ops/binary.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

using ops::BinaryKind;

/// out = op(operands[0], operands[1]) broadcast by `plan`, in `compute` (torch.result_type of
/// the operands; float32 for true division, atan2, hypot, logaddexp(2), copysign and xlogy of
/// integers), bool for logical ops.
/// clamp has three operands, the absent bound (present false) a scalar's empty shape.
struct MathBinaryParams {
  BinaryKind op = BinaryKind::kAdd;
  int n = 0;
  std::array<Operand, 3> operands{};
  std::array<bool, 3> present{true, true, true};  // clamp's optional bounds
  NaryPlan plan;
  DType compute = DType::kUndefined;  // dtype the math runs in (float32 math runs in double)
  DType out = DType::kUndefined;
  double alpha = 1;       // add/sub's alpha (floating-point operands); the schema default
  int64_t int_alpha = 1;  // ... on integer operands
};

/// (self, other[, alpha]) for binary ops; `self` may be a Scalar (pow.Scalar).
template <BinaryKind Op>
Result<MathBinaryParams> math_prepare_binary(const KernelCall& call, PrepareInfo* out_info);
/// div.Tensor_mode / div.Scalar_mode (self, other, rounding_mode).
Result<MathBinaryParams> math_prepare_div_mode(const KernelCall& call, PrepareInfo* out_info);
/// clamp.Tensor(self, min?, max?) and clamp(self, min?, max?) with Scalar bounds.
Result<MathBinaryParams> math_prepare_clamp(const KernelCall& call, PrepareInfo* out_info);
/// addcmul / addcdiv (self, tensor1, tensor2, *, value=1) and lerp.Tensor / lerp.Scalar
/// (self, end, weight): three operands promoted together (torch.result_type).
template <BinaryKind Op>
Result<MathBinaryParams> math_prepare_ternary(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
