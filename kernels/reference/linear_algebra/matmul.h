// Run function of the reference matmul kernel (matmul.cc); the optimized kernel calls it
// for the cases it does not accelerate (empty dims).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/linear_algebra/matmul.h"

namespace tir::kernels {

void ref_matmul(const MatmulParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
