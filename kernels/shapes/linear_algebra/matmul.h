// Shared shape inference for batched matrix products: aten::bmm, aten::matmul (every
// torch.matmul case: 1-D operands, 2-D, batched with broadcast batch dims) and
// aten::baddbmm. float32, contiguous.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// out[b] = alpha * A[b] @ B[b] + beta * C[b] over the broadcast batch dims, each matrix
/// row-major: A[b] is [m, k], B[b] is [k, n], out[b] is [m, n] (dense, batch-major).
/// Batch strides are in elements, 0 where an operand is broadcast.
struct MatmulParams {
  DType dtype = DType::kFloat32;  // of every operand and the output: float32 or float64
  int64_t m = 0, k = 0, n = 0;
  int batch_rank = 0;
  std::array<int64_t, kMaxRank> batch{};
  std::array<int64_t, kMaxRank> a_bstrides{}, b_bstrides{}, c_bstrides{};
  /// Batch dims of each operand as stored (1 where broadcast), for oneDNN descriptors.
  std::array<int64_t, kMaxRank> a_batch{}, b_batch{};
  double alpha = 1.0, beta = 0.0;
  int a_input = -1, b_input = -1, c_input = -1;
  int64_t c_row_stride = 0, c_col_stride = 0;
  int64_t batch_count() const {
    int64_t c = 1;
    for (int i = 0; i < batch_rank; ++i) c *= batch[i];
    return c;
  }
};

/// bmm(self[B, M, K], mat2[B, K, N]) -> [B, M, N]
Result<MatmulParams> matmul_prepare_bmm(const KernelCall& call, PrepareInfo* out_info);
/// matmul(self, other): torch.matmul semantics, output rank as torch.
Result<MatmulParams> matmul_prepare_matmul(const KernelCall& call, PrepareInfo* out_info);
/// baddbmm(self, batch1[B, M, K], batch2[B, K, N], *, beta, alpha); self broadcasts to
/// [B, M, N]; beta == 0 ignores self (as ATen: NaN in self does not propagate).
Result<MatmulParams> matmul_prepare_baddbmm(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
