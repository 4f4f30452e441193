// Run function of the reference element-wise math kernel (math.cc) and its kernel types, which
// the unary and binary registration tables (math.cc, binary/arithmetic.cc) share.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/registry.h"
#include "kernels/shapes/unary/math.h"

namespace tir::kernels {

/// Fails on an integer division by zero.
Status ref_math(const MathParams& p, const KernelCall& call);

template <MathOp Op>
using MathUnaryRef = CheckedKernel<MathParams, math_prepare_unary<Op>, ref_math>;
template <MathOp Op>
using MathBinaryRef = CheckedKernel<MathParams, math_prepare_binary<Op>, ref_math>;
using MathDivModeRef = CheckedKernel<MathParams, math_prepare_div_mode, ref_math>;
using MathClampRef = CheckedKernel<MathParams, math_prepare_clamp, ref_math>;

/// A registration row of `op` for `dtype` (kUndefined: any) on the reference backend.
template <MathOp Op>
KernelEntry math_unary(const char* op, DType dtype = DType::kUndefined) {
  return {op, DeviceType::kCpu, dtype, KernelImpl::kReference, &make_kernel<MathUnaryRef<Op>>};
}
template <MathOp Op>
KernelEntry math_binary(const char* op, DType dtype = DType::kUndefined) {
  return {op, DeviceType::kCpu, dtype, KernelImpl::kReference, &make_kernel<MathBinaryRef<Op>>};
}

}  // namespace tir::kernels
