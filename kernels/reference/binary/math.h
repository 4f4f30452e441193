// Run function of the reference binary math kernel (math.cc) and its kernel types, which the
// binary registration table (arithmetic.cc) uses.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/registry.h"
#include "kernels/shapes/binary/math.h"

namespace tir::kernels {

/// Fails on an integer division by zero.
Status ref_math_binary(const MathBinaryParams& p, const KernelCall& call);

template <BinaryKind Op>
using MathBinaryRef = CheckedKernel<MathBinaryParams, math_prepare_binary<Op>, ref_math_binary>;
using MathDivModeRef = CheckedKernel<MathBinaryParams, math_prepare_div_mode, ref_math_binary>;
using MathClampRef = CheckedKernel<MathBinaryParams, math_prepare_clamp, ref_math_binary>;
template <BinaryKind Op>
using MathTernaryRef = CheckedKernel<MathBinaryParams, math_prepare_ternary<Op>, ref_math_binary>;

/// A registration row of `op` for `dtype` (kUndefined: any) on the reference backend.
template <BinaryKind Op>
KernelEntry math_binary(const char* op, DType dtype = DType::kUndefined) {
  return {op, DeviceType::kCpu, dtype, KernelImpl::kReference, &make_kernel<MathBinaryRef<Op>>};
}

}  // namespace tir::kernels
