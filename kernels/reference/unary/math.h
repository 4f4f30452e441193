// Run function of the reference unary math kernel (math.cc) and its kernel type, which the
// unary registration tables (math.cc, activation.cc) share.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/registry.h"
#include "kernels/shapes/unary/math.h"

namespace tir::kernels {

void ref_math_unary(const MathUnaryParams& p, const KernelCall& call, void* scratch);

template <UnaryKind Op>
using MathUnaryRef = FnKernel<MathUnaryParams, math_prepare_unary<Op>, ref_math_unary>;

/// A registration row of `op` for `dtype` (kUndefined: any) on the reference backend.
template <UnaryKind Op>
KernelEntry math_unary(const char* op, DType dtype = DType::kUndefined) {
  return {op, DeviceType::kCpu, dtype, KernelImpl::kReference, &make_kernel<MathUnaryRef<Op>>};
}

}  // namespace tir::kernels
