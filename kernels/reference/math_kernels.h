// Run functions of the reference activation, layer-norm/softmax, reduction and embedding
// kernels, for the optimized kernels that fall back to them (as reference_kernels.h does
// for the first op families).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/act_shapes.h"
#include "kernels/shapes/embedding_shapes.h"
#include "kernels/shapes/norm2_shapes.h"
#include "kernels/shapes/reduce2_shapes.h"

namespace tir::kernels {

void ref_act(const ActParams& p, const KernelCall& call, void* scratch);
void ref_pow_tensor(const PowParams& p, const KernelCall& call, void* scratch);
void ref_layer_norm(const LayerNormParams& p, const KernelCall& call, void* scratch);
void ref_softmax(const SoftmaxParams& p, const KernelCall& call, void* scratch);
void ref_sum(const Reduce2Params& p, const KernelCall& call, void* scratch);
void ref_amax(const Reduce2Params& p, const KernelCall& call, void* scratch);
void ref_cumsum(const CumsumParams& p, const KernelCall& call, void* scratch);
/// Fails on an index outside [0, num_embeddings).
Status ref_embedding(const EmbeddingParams& p, const KernelCall& call);

}  // namespace tir::kernels
