// The binary family's kind enum, and the scalar formula for the arithmetic ops that take an
// `alpha` (add, sub, mul, div), written once: the reference kernels (in double or int64) and the
// CUDA launcher (kernels/cuda/elementwise.cu, in float) call it; the Eigen kernels
// (kernels/cpu/eigen/eltwise_eigen.cc) apply the same expressions to whole rows. Plain C++, so
// nvcc compiles it for the device too.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TIR_HOST_DEVICE __host__ __device__
#else
#define TIR_HOST_DEVICE
#endif

namespace tir::kernels::ops {

/// Element-wise functions of two tensors, or of a tensor and a scalar, with torch's type
/// promotion (the comparisons are kernels/shapes/binary/logic.h's), and clamp of three. Every
/// bitwise and logical op of two operands is one of these (kernels/reference/binary/math.cc
/// computes them), whatever its dtype.
enum class BinaryKind : uint8_t {
  kAdd,  // a + alpha b
  kSub,  // a - alpha b
  kMul,
  kDiv,  // true division; integer operands give float32
  kDivTrunc,
  kDivFloor,
  kFmod,
  kRemainder,
  kMaximum,
  kMinimum,
  kAtan2,  // integer operands give float32
  kPow,    // integer operands stay integer
  kBitAnd,
  kBitOr,
  kBitXor,
  kLogicalAnd,  // -> bool
  kLogicalOr,
  kLogicalXor,
  kClamp,    // clamp(self, min?, max?): three operands, either bound optional
  kAddcmul,  // self + value * t1 * t2 (value in alpha)
  kAddcdiv,  // self + value * t1 / t2 (floating point only, as torch)
  kLerp,     // self + weight * (end - self), in torch's two-sided form
  kFmax,     // maximum ignoring NaN
  kFmin,
  kHypot,      // this and the next four: integer operands give float32
  kLogaddexp,  // log(exp(a) + exp(b))
  kLogaddexp2,
  kCopysign,
  kXlogy,      // a * log(b), 0 where a == 0 (NaN b stays NaN)
  kHeaviside,  // b where a == 0, else a > 0
};

/// a (op) alpha * b for add and sub; a * b and a / b for mul and div (alpha unused); a for
/// the other kinds, which kernels/reference/binary/math.cc computes.
template <typename T>
TIR_HOST_DEVICE inline T binary_apply(BinaryKind op, T a, T b, T alpha) {
  switch (op) {
    case BinaryKind::kAdd:
      return a + alpha * b;
    case BinaryKind::kSub:
      return a - alpha * b;
    case BinaryKind::kMul:
      return a * b;
    case BinaryKind::kDiv:
      return a / b;
    default:
      return a;
  }
}

}  // namespace tir::kernels::ops
