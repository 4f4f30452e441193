// Run function of the reference embedding kernel (embedding.cc).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/indexing/embedding.h"

namespace tir::kernels {

/// Fails on an index outside [0, num_embeddings).
Status ref_embedding(const EmbeddingParams& p, const KernelCall& call);

}  // namespace tir::kernels
