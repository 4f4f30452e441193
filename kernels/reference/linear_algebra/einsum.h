// Run function of the reference einsum (einsum.cc), for the optimized kernel's fallback.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/linear_algebra/einsum.h"

namespace tir::kernels {

/// For each output element, the sum over the summed labels of the operands' product, in
/// double.
void ref_einsum(const EinsumParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
