// Shared shape inference and validation for the float32 (and int64) element-wise maps the
// optimized kernels also run: relu, sin and cos on float32, activations (gelu, tanh, sigmoid, silu,
// hard*), unary math (neg, exp, log, sqrt, rsqrt, abs, erf) and ops of a tensor with scalars
// (pow.Tensor_Scalar, rsub/sub/div.Scalar); plus pow.Tensor_Tensor.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/ops/unary.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

using ops::UnaryKind;

/// y = op(x) elementwise. `dtype` is the dtype of x and y: float32, float64, or int64 where torch
/// keeps integers (neg, abs, hardtanh, relu, relu6 and pow/rsub/sub with int scalars).
/// For an int64 input with a float result (div.Scalar, a float scalar), `out_dtype` is
/// float32 and x is converted first.
struct ActParams {
  UnaryKind op = UnaryKind::kNeg;
  DType dtype = DType::kFloat32;
  DType out_dtype = DType::kFloat32;
  int64_t numel = 0;
  int input = -1;
  ScalarValue a, b;  // the op's scalar arguments
  /// hardtanh of an int64 tensor with float bounds: clamped in float32, the result cast back
  /// to int64 (torch keeps hardtanh's dtype).
  bool float_bounds = false;
};

/// relu(_), sin and cos on float32: the kernels that take no arguments beyond the input.
struct UnaryParams {
  int64_t numel = 0;
  int input = -1;
};

/// (self) -> same shape, float32.
Result<UnaryParams> act_prepare_unary_float(const KernelCall& call, PrepareInfo* out_info);

/// The act ops (the UnaryKinds act_prepare is instantiated for); Op selects the schema: (self),
/// (self, *, approximate) for kGeluErf (kGeluTanh when approximate="tanh"), (self, min, max),
/// (self, exponent), (self, other, alpha), (self, other).
template <UnaryKind Op>
Result<ActParams> act_prepare(const KernelCall& call, PrepareInfo* out_info);

/// pow.Tensor_Tensor(self, exponent): broadcasting, float32 result (int64 when both are
/// integral); either side may be a 0-d tensor or a Python scalar.
struct PowParams {
  DType dtype = DType::kFloat32;  // computation and output dtype
  NaryPlan plan;
  Operand base, exponent;
};
Result<PowParams> act_prepare_pow_tensor(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
