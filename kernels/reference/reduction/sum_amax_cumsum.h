// Run functions of the reference sum, amax and cumsum kernels (sum_amax_cumsum.cc), for
// the optimized kernels that fall back to them.
#pragma once

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"
#include "kernels/shapes/reduction/sum_amax_cumsum.h"

namespace tir::kernels {

void ref_sum(const ReduceCastParams& p, const KernelCall& call, void* scratch);
void ref_amax(const ReduceCastParams& p, const KernelCall& call, void* scratch);
void ref_cumsum(const CumsumParams& p, const KernelCall& call, void* scratch);

using AmaxRef = FnKernel<ReduceCastParams, amax_prepare, ref_amax>;

}  // namespace tir::kernels
