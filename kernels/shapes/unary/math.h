// Shared shape inference and dtype rules for the element-wise math ops beyond the
// activation family: the remaining unary math (trigonometric, rounding, isnan, ...),
// binary math with torch's type promotion (atan2, fmod, remainder, maximum, minimum,
// floor/trunc division, logical and bitwise ops, add/sub/mul on int32 and bool), clamp with
// tensor bounds, pow with a scalar base, leaky_relu and elu. Operands may be tensors of
// bool, int32, int64, float32 or float64, or Python scalars where the schema has a Scalar.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

enum class MathOp : uint8_t {
  // unary; integer inputs give float32 (torch's int-to-float promotion)
  kAcos,
  kAcosh,
  kAsin,
  kAsinh,
  kAtan,
  kAtanh,
  kCosh,
  kSinh,
  kTan,
  kExpm1,
  kLog1p,
  kLog2,
  kLog10,
  kReciprocal,
  kCos,
  kSin,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kSigmoid,
  kTanh,
  kErf,
  // unary; integer inputs keep their dtype
  kCeil,
  kFloor,
  kRound,
  kTrunc,
  kSign,
  kAbs,
  kNeg,
  // unary -> bool
  kIsnan,
  kIsinf,
  // unary with scalar parameters (a, b, c)
  kLeakyRelu,  // negative_slope a
  kElu,        // alpha a, scale b, input_scale c
  kRoundDecimals,
  // binary (operands 0, 1), result_type of both
  kAdd,  // alpha a
  kSub,  // alpha a
  kMul,
  kFmod,
  kRemainder,
  kMaximum,
  kMinimum,
  kDivTrunc,
  kDivFloor,
  kDivTrue,  // integer operands give float32
  kAtan2,    // integer operands give float32
  kPow,      // integer operands stay integer
  kBitAnd,
  kBitOr,
  kBitXor,
  kLogicalAnd,  // -> bool
  kLogicalOr,
  kLogicalXor,
  // ternary: clamp(self, min?, max?) (operand -1 input and kind kScalar with is_none: absent)
  kClamp,
};

struct MathParams {
  MathOp op = MathOp::kAcos;
  int n = 0;
  std::array<Operand, 3> operands{};
  std::array<bool, 3> present{true, true, true};  // clamp's optional bounds
  NaryPlan plan;
  DType compute = DType::kUndefined;  // dtype the math runs in (float32 math runs in double)
  DType out = DType::kUndefined;
  double a = 0, b = 1, c = 1;
  int64_t ia = 1;  // integer alpha
};

/// One-tensor ops: (self) for plain unary math; leaky_relu(self, negative_slope),
/// elu(self, alpha, scale, input_scale), round.decimals(self, decimals).
template <MathOp Op>
Result<MathParams> math_prepare_unary(const KernelCall& call, PrepareInfo* out_info);
/// (self, other[, alpha]) for binary ops; `self` may be a Scalar (pow.Scalar).
template <MathOp Op>
Result<MathParams> math_prepare_binary(const KernelCall& call, PrepareInfo* out_info);
/// div.Tensor_mode / div.Scalar_mode (self, other, rounding_mode).
Result<MathParams> math_prepare_div_mode(const KernelCall& call, PrepareInfo* out_info);
/// clamp.Tensor(self, min?, max?) and clamp(self, min?, max?) with Scalar bounds.
Result<MathParams> math_prepare_clamp(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
