// Run function of the reference layer-norm kernel (layer_norm.cc), for the optimized kernels
// that fall back to it.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/normalization/layer_norm.h"

namespace tir::kernels {

void ref_layer_norm(const LayerNormParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
