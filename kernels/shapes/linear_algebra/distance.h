// Shared shape inference for p-norm distances: aten::_cdist_forward (between the rows of two
// batched matrices, batch dims broadcast) and aten::_pdist_forward (between the rows of one
// matrix, upper triangle).
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

struct DistanceParams {
  int x1 = -1, x2 = -1;  // x2 = -1 for pdist
  int64_t rows1 = 0, rows2 = 0, cols = 0;
  double p = 2;
  BroadcastPlan batch;  // cdist: output batch dims against x1's and x2's (in matrices)
};

/// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode?) -> [*, P, R]; p >= 0
/// (0 counts differing elements, inf takes the largest difference).
Result<DistanceParams> distance_prepare_cdist(const KernelCall& call, PrepareInfo* out_info);
/// _pdist_forward(self [N, M], p=2) -> [N * (N - 1) / 2], pairs (i, j > i) in row order.
Result<DistanceParams> distance_prepare_pdist(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
