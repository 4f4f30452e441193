// Shared shape inference for the complex family (kernels/ops/complex.cc) and the complex
// dtypes of the arithmetic rows: the views between a complex tensor and its float parts
// (view_as_real, view_as_complex), building complex values (polar, complex), reading parts
// (real, imag, abs, angle), conjugation, and element-wise add/sub/mul/div/neg of complex64 and
// complex128 tensors. A complex element is two values of its part dtype, real first
// (std::complex layout, as ATen stores it).
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

enum class ComplexOp : uint8_t {
  kViewAsReal,     // complex [...] -> part [..., 2]
  kViewAsComplex,  // part [..., 2] -> complex [...]
  kReal,           // complex -> part: real part
  kImag,           // complex -> part: imaginary part
  kConj,           // complex -> complex (a real tensor: itself)
  kAbs,            // complex -> part: modulus
  kAngle,          // complex or real -> part: argument (real: 0 or pi, NaN kept)
  kPolar,          // (abs, angle) parts -> complex
  kComplex,        // (real, imag) parts -> complex
  kNeg,            // complex -> complex
  kAdd,            // complex (+) complex-or-real, broadcast; alpha
  kSub,
  kMul,
  kDiv,
};

/// One prepared complex op. `part` is float32 or float64: the dtype of a part of every complex
/// value the op reads or writes. Unary ops read input `a` (numel elements); binary ops walk
/// `plan` over a and b (b may be a scalar: b_input -1, b_value).
struct ComplexParams {
  ComplexOp op = ComplexOp::kViewAsReal;
  DType part = DType::kFloat32;
  int64_t numel = 0;
  int a_input = -1;
  int b_input = -1;
  bool a_complex = true;  // input a holds complex values (else real values of `part`)
  bool b_complex = true;
  double b_value = 0.0;  // a scalar `other`
  double alpha = 1.0;    // add/sub: other * alpha
  BroadcastPlan plan;
};

/// view_as_real(self): complex [...] -> [..., 2] of its part dtype (a copy).
Result<ComplexParams> complex_prepare_view_as_real(const KernelCall& call, PrepareInfo* info);
/// view_as_complex(self): float32/float64 [..., 2] -> complex [...] (a copy).
Result<ComplexParams> complex_prepare_view_as_complex(const KernelCall& call, PrepareInfo* info);
/// real, imag, abs, angle, conj, _conj, conj_physical, resolve_conj, neg (self).
template <ComplexOp Op>
Result<ComplexParams> complex_prepare_unary(const KernelCall& call, PrepareInfo* info);
/// polar(abs, angle) and complex(real, imag): two float tensors of one dtype, broadcast.
template <ComplexOp Op>
Result<ComplexParams> complex_prepare_make(const KernelCall& call, PrepareInfo* info);
/// add/sub (self, other, alpha), mul/div (self, other), Tensor and Scalar overloads: `self`
/// complex, `other` a tensor of self's dtype (the promotion pass casts it there) or a real
/// number.
template <ComplexOp Op>
Result<ComplexParams> complex_prepare_binary(const KernelCall& call, PrepareInfo* info);

}  // namespace tir::kernels
