// Shared shape inference and validation for aten::embedding.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// out[i, :] = weight[indices[i], :] for weight [num_embeddings, dim] float32 and int64
/// or int32 indices of any shape; out has shape indices.shape + [dim].
struct EmbeddingParams {
  int64_t num_embeddings = 0, dim = 0, count = 0;
  DType index_dtype = DType::kInt64;
  DType dtype = DType::kFloat32;  // of weight and output: float32, float16 or bfloat16
  int weight = -1, indices = -1;
};

/// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse); padding_idx only
/// affects gradients and is ignored.
Result<EmbeddingParams> embedding_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
