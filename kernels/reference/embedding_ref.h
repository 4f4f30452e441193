// Run function of the reference embedding kernel (embedding_ref.cc).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/embedding_shapes.h"

namespace tir::kernels {

/// Fails on an index outside [0, num_embeddings).
Status ref_embedding(const EmbeddingParams& p, const KernelCall& call);

}  // namespace tir::kernels
