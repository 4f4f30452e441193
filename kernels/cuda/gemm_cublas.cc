// CUDA GEMM family on cuBLAS, float32 (no TF32: the device's handle keeps the default math
// mode): linear, addmm, mm as one cublasSgemm; bmm, matmul, baddbmm as strided-batched
// GEMMs over the last batch dim, looped over the outer ones. Row-major operands are read as
// their column-major transposes: C^T[n, m] = B^T[n, k] A^T[k, m]. A C term (bias, addmm's
// or baddbmm's self) is first broadcast into the output times beta (elementwise.cu), then
// cuBLAS accumulates onto it.
#include <climits>

#include "kernels/cuda/cuda_kernel.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/linear_algebra/gemm.h"
#include "kernels/shapes/linear_algebra/matmul.h"

namespace tir::kernels::cuda {
namespace {

Status blas_status(const KernelCall& call, cublasStatus_t s) {
  if (s == CUBLAS_STATUS_SUCCESS) return ok_status();
  return op_error(call, StatusCode::kInternal, "cuBLAS: ", cublasGetStatusString(s));
}

Status check_sizes(const KernelCall& call, int64_t m, int64_t k, int64_t n) {
  if (call.precision != Precision::kFloat32)
    return op_error(call, StatusCode::kUnsupported, "CUDA GEMMs compute in float32 only (",
                    precision_name(call.precision), " is not implemented on CUDA)");
  if (m > INT_MAX || k > INT_MAX || n > INT_MAX)
    return op_error(call, StatusCode::kUnsupported, "a GEMM dim over ", INT_MAX, " on CUDA");
  return ok_status();
}

template <Result<GemmParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
Result<GemmParams> gemm_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(GemmParams p, Prepare(call, out_info));
  TIR_RETURN_IF_ERROR(check_sizes(call, p.m, p.k, p.n));
  if (p.b_dtype != DType::kFloat32)  // the CUDA rows offer no OpCaps::half_weight
    return op_error(call, StatusCode::kUnsupported, "a ", dtype_name(p.b_dtype),
                    " B operand is read as stored only on the CPU");
  return p;
}

Status gemm_launch(const GemmParams& p, const KernelCall& call, CudaContext& ctx) {
  if (p.m == 0 || p.n == 0) return ok_status();
  float* out = call.outputs[0].data_as<float>();
  float beta = 0.0f;
  if (p.c_input >= 0 && p.beta != 0.0) {
    TIR_RETURN_IF_ERROR(
        launch_status(call, broadcast_fill_f32(call.inputs[p.c_input].data_as<const float>(), out,
                                               static_cast<float>(p.beta), 0, nullptr, nullptr, p.m,
                                               p.n, p.c_row_stride, p.c_col_stride, ctx.stream)));
    beta = 1.0f;
  }
  const float alpha = static_cast<float>(p.alpha);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  return blas_status(
      call,
      cublasSgemm(ctx.blas, p.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                  &alpha, call.inputs[p.b_input].data_as<const float>(), p.b_transposed ? k : n,
                  call.inputs[p.a_input].data_as<const float>(), k, &beta, out, n));
}

template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
Result<MatmulParams> matmul_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(MatmulParams p, Prepare(call, out_info));
  TIR_RETURN_IF_ERROR(check_sizes(call, p.m, p.k, p.n));
  if (p.batch_rank > 8)
    return op_error(call, StatusCode::kUnsupported, "over 8 batch dims on CUDA");
  if (p.batch_rank > 0 && p.batch[p.batch_rank - 1] > INT_MAX)
    return op_error(call, StatusCode::kUnsupported, "a batch over ", INT_MAX, " on CUDA");
  return p;
}

Status matmul_launch(const MatmulParams& p, const KernelCall& call, CudaContext& ctx) {
  const int64_t count = p.batch_count();
  if (p.m == 0 || p.n == 0 || count == 0) return ok_status();
  float* out = call.outputs[0].data_as<float>();
  float beta = 0.0f;
  if (p.c_input >= 0 && p.beta != 0.0) {
    TIR_RETURN_IF_ERROR(
        launch_status(call, broadcast_fill_f32(call.inputs[p.c_input].data_as<const float>(), out,
                                               static_cast<float>(p.beta), p.batch_rank,
                                               p.batch.data(), p.c_bstrides.data(), p.m, p.n,
                                               p.c_row_stride, p.c_col_stride, ctx.stream)));
    beta = 1.0f;
  }
  const float alpha = static_cast<float>(p.alpha);
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const float* a = call.inputs[p.a_input].data_as<const float>();
  const float* b = call.inputs[p.b_input].data_as<const float>();
  if (p.batch_rank == 0)
    return blas_status(call, cublasSgemm(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, n,
                                         a, k, &beta, out, n));
  // The last batch dim is one strided-batched call; the outer ones are looped here.
  const int last = p.batch_rank - 1;
  const int inner = static_cast<int>(p.batch[last]);
  const int64_t outer = count / p.batch[last];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rest = o, a_off = 0, b_off = 0;
    for (int d = last - 1; d >= 0; --d) {
      const int64_t i = rest % p.batch[d];
      rest /= p.batch[d];
      a_off += i * p.a_bstrides[d];
      b_off += i * p.b_bstrides[d];
    }
    TIR_RETURN_IF_ERROR(blas_status(
        call,
        cublasSgemmStridedBatched(ctx.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b + b_off, n,
                                  p.b_bstrides[last], a + a_off, k, p.a_bstrides[last], &beta,
                                  out + o * inner * p.m * p.n, n, p.m * p.n, inner)));
  }
  return ok_status();
}

template <Result<GemmParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using GemmCuda = CudaKernel<GemmParams, gemm_prepare<Prepare>, gemm_launch>;
template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using MatmulCuda = CudaKernel<MatmulParams, matmul_prepare<Prepare>, matmul_launch>;

}  // namespace

void register_gemm_cublas(KernelRegistry& registry) {
  registry.add({
      {"aten::linear", kGpu, kF32, kOpt, &make_kernel<GemmCuda<gemm_prepare_linear>>},
      {"aten::addmm", kGpu, kF32, kOpt, &make_kernel<GemmCuda<gemm_prepare_addmm>>},
      {"aten::mm", kGpu, kF32, kOpt, &make_kernel<GemmCuda<gemm_prepare_mm>>},
      {"aten::bmm", kGpu, kF32, kOpt, &make_kernel<MatmulCuda<matmul_prepare_bmm>>},
      {"aten::matmul", kGpu, kF32, kOpt, &make_kernel<MatmulCuda<matmul_prepare_matmul>>},
      {"aten::baddbmm", kGpu, kF32, kOpt, &make_kernel<MatmulCuda<matmul_prepare_baddbmm>>},
  });
}
}  // namespace tir::kernels::cuda
