// Run functions of the reference activation kernels (activation.cc), for the optimized kernels
// that fall back to them.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/shapes/unary/activation.h"

namespace tir::kernels {

void ref_act(const ActParams& p, const KernelCall& call, void* scratch);
void ref_pow_tensor(const PowParams& p, const KernelCall& call, void* scratch);

template <UnaryKind Op>
using ActRef = FnKernel<ActParams, act_prepare<Op>, ref_act>;
using PowTensorRef = FnKernel<PowParams, act_prepare_pow_tensor, ref_pow_tensor>;

}  // namespace tir::kernels
