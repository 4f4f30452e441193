// Run functions of the reference layer-norm and (log-)softmax kernels
// (layer_norm_softmax.cc), for the optimized kernels that fall back to them.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/softmax/layer_norm_softmax.h"

namespace tir::kernels {

void ref_layer_norm(const LayerNormParams& p, const KernelCall& call, void* scratch);
void ref_softmax(const SoftmaxParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
