// Run function of the reference (log-)softmax kernel (softmax.cc), for the optimized kernels
// that fall back to it.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/softmax/softmax.h"

namespace tir::kernels {

void ref_softmax(const SoftmaxParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
