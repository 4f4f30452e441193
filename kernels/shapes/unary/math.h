// Shared shape inference and dtype rules for the element-wise unary math beyond the act kernels
// (kernels/shapes/unary/activation.h): trigonometric, exponential and rounding functions,
// isnan/isinf, leaky_relu and elu, and the integer forms of exp, log, abs, neg, ... Inputs may
// be tensors of bool, int32, int64, float32 or float64; the binary math (atan2, fmod, ...) is
// kernels/shapes/binary/math.h.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/ops/unary.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

using ops::UnaryKind;

/// y = op(x). Integer inputs give float32 (torch's int-to-float promotion) except for the kinds
/// that keep integer dtypes (neg, abs, sign and rounding); isnan and isinf give bool.
struct MathUnaryParams {
  UnaryKind op = UnaryKind::kAcos;
  Operand x;
  NaryPlan plan;
  DType compute = DType::kUndefined;  // dtype the math runs in (float32 math runs in double)
  DType out = DType::kUndefined;
  double a = 0, b = 1, c = 1;  // leaky_relu's negative_slope; elu's alpha, scale, input_scale
  int64_t decimals = 1;        // round.decimals
};

/// (self) for plain unary math; leaky_relu(self, negative_slope),
/// elu(self, alpha, scale, input_scale), round.decimals(self, decimals).
template <UnaryKind Op>
Result<MathUnaryParams> math_prepare_unary(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
