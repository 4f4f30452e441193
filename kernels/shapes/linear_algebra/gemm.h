// Shared shape inference and validation for aten::linear, aten::addmm and aten::mm.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// out[M,N] = alpha * A[M,K] @ B + beta * C, where B is [K,N] or, when `b_transposed`
/// (linear's weight), stored as [N,K]. C (bias / addmm's self) is read as
/// C[i*c_row_stride + j*c_col_stride] (strides 0 where broadcast). A float32 product may read
/// a float16/bfloat16 B as stored (`b_dtype`): a half-precision program's weight, left narrow
/// by runtime/passes/narrow_dtypes.h where the node's kernel reads it (OpCaps::half_weight).
struct GemmParams {
  int64_t m = 0, k = 0, n = 0;
  bool b_transposed = false;
  DType b_dtype = DType::kFloat32;
  double alpha = 1.0, beta = 0.0;
  int a_input = -1, b_input = -1, c_input = -1;  // indices into KernelCall::inputs; -1 = none
  int64_t c_row_stride = 0, c_col_stride = 0;
};

/// How C enters a float32 product: not at all, as a row-broadcast bias (alpha == beta == 1,
/// one value per column or one for all), or as beta * C summed onto the output, which then
/// starts as C (gemm_copy_c).
enum class GemmCMode { kNone, kBias, kSum };
GemmCMode gemm_c_mode(const GemmParams& p);
/// out[i, j] = C broadcast to [M, N]: what a kSum product accumulates onto.
void gemm_copy_c(const GemmParams& p, const float* c, float* out);

/// linear(input[..., K], weight[N, K], bias[N]?) -> [..., N]
Result<GemmParams> gemm_prepare_linear(const KernelCall& call, PrepareInfo* out_info);
/// addmm(self, mat1[M, K], mat2[K, N], *, beta, alpha) -> [M, N]; self broadcasts to [M, N].
/// linear, mm and addmm take float32 or (all operands) float64; mm and addmm also int64.
Result<GemmParams> gemm_prepare_addmm(const KernelCall& call, PrepareInfo* out_info);
/// mm(self[M, K], mat2[K, N]) -> [M, N]
Result<GemmParams> gemm_prepare_mm(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
