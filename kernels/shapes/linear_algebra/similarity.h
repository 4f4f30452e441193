// Shared shape inference for the similarities of two tensors along one dim (broadcast
// against each other):
//   cosine_similarity(x1, x2, dim=1, eps=1e-8): sum of x1 / max(|x1|, eps) * x2 / max(|x2|,
//     eps) over dim (torch's form: each normalised first)
//   pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False): the p-norm of x1 - x2 + eps
//     over the last dim (p = 0 counts nonzeros, inf takes the largest)
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

struct SimilarityParams {
  bool cosine = true;
  double p = 2, eps = 0;
  int x1 = -1, x2 = -1;
  DType dtype = DType::kFloat32;
  BroadcastPlan plan;  // over the broadcast shape with the reduced dim moved last
};

Result<SimilarityParams> similarity_prepare_cosine(const KernelCall& call, PrepareInfo* out_info);
Result<SimilarityParams> similarity_prepare_pairwise(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
