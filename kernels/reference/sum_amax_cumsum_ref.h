// Run functions of the reference sum, amax and cumsum kernels (sum_amax_cumsum_ref.cc), for
// the optimized kernels that fall back to them.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/sum_amax_cumsum_shapes.h"

namespace tir::kernels {

void ref_sum(const ReduceCastParams& p, const KernelCall& call, void* scratch);
void ref_amax(const ReduceCastParams& p, const KernelCall& call, void* scratch);
void ref_cumsum(const CumsumParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
