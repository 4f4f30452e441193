// Run functions of the reference activation kernels (activation.cc), for the optimized kernels
// that fall back to them.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/unary/activation.h"

namespace tir::kernels {

void ref_act(const ActParams& p, const KernelCall& call, void* scratch);
void ref_pow_tensor(const PowParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
