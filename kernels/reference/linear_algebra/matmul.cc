// Reference batched matrix products: aten::bmm, aten::matmul, aten::baddbmm (double
// accumulation, one batch at a time over the broadcast batch dims).
#include "kernels/reference/linear_algebra/matmul.h"

#include <algorithm>
#include <array>
#include <utility>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {

namespace {

template <typename T>
void matmul_batches(const MatmulParams& p, const KernelCall& call) {
  const T* a = call.inputs[p.a_input].data_as<const T>();
  const T* b = call.inputs[p.b_input].data_as<const T>();
  const T* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const T>() : nullptr;
  T* out = call.outputs[0].data_as<T>();
  const int64_t batches = p.batch_count();
  std::array<int64_t, kMaxRank> idx{};
  int64_t ao = 0, bo = 0, co = 0;
  for (int64_t bi = 0; bi < batches; ++bi) {
    T* ob = out + bi * p.m * p.n;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double acc = 0.0;
        for (int64_t q = 0; q < p.k; ++q) {
          acc += static_cast<double>(a[ao + i * p.k + q]) * b[bo + q * p.n + j];
        }
        double v = p.alpha * acc;
        if (c != nullptr && p.beta != 0.0) {
          v += p.beta * c[co + i * p.c_row_stride + j * p.c_col_stride];
        }
        ob[i * p.n + j] = static_cast<T>(v);
      }
    }
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      ao += p.a_bstrides[d];
      bo += p.b_bstrides[d];
      co += p.c_bstrides[d];
      if (++idx[d] < p.batch[d]) break;
      ao -= p.a_bstrides[d] * p.batch[d];
      bo -= p.b_bstrides[d] * p.batch[d];
      co -= p.c_bstrides[d] * p.batch[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void ref_matmul(const MatmulParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) {
    matmul_batches<double>(p, call);
  } else {
    matmul_batches<float>(p, call);
  }
}

namespace {

template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using MatmulRef = FnKernel<MatmulParams, Prepare, ref_matmul>;

}  // namespace

namespace {

/// transformers::grouped_mm_fallback(input [S, K], weight [E, K, N], offs [E]) -> [S, N]: the
/// mixture-of-experts GEMM transformers exports (integrations/moe.py), and torch's own
/// aten::_grouped_mm(self, mat2, offs, bias=None, out_dtype=None) in its 2-D x 3-D form, which
/// transformers calls instead for bfloat16 models: rows offs[i-1] .. offs[i] of input times
/// weight[i] (offs cumulative, int64 or int32), rows past offs[E-1] zero. float32 (half
/// programs compute here in float32, runtime/passes/narrow_dtypes.h), accumulated in float as
/// torch.mm; the weight may be a strided view (transposed experts).
struct GroupedMmParams {
  int64_t s = 0, k = 0, n = 0, experts = 0;
  std::array<int64_t, 3> w_strides{};
};

Result<GroupedMmParams> grouped_mm_common(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 1, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* offs, tensor_arg(call, 2, "offs"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *w, DType::kFloat32, "weight"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  if (offs->dtype != DType::kInt64 && offs->dtype != DType::kInt32)
    return op_error(call, StatusCode::kInvalidArgument, "offs must be int64 or int32");
  TIR_RETURN_IF_ERROR(require_contiguous(call, *offs, "offs"));
  if (x->rank != 2 || w->rank != 3 || offs->rank != 1 || w->sizes[1] != x->sizes[1] ||
      offs->sizes[0] != w->sizes[0])
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    ", weight ", shape_str(w->shape()), " and offs ", shape_str(offs->shape()),
                    " are not [S, K], [E, K, N] and [E]");
  GroupedMmParams p{x->sizes[0],
                    x->sizes[1],
                    w->sizes[2],
                    w->sizes[0],
                    {w->strides[0], w->strides[1], w->strides[2]}};
  call.outputs[0].dtype = DType::kFloat32;
  const int64_t out[2] = {p.s, p.n};
  call.outputs[0].set_shape(out);
  return p;
}

Result<GroupedMmParams> grouped_mm_prepare(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 1, "weight"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weight"));
  return grouped_mm_common(call);
}

Result<GroupedMmParams> aten_grouped_mm_prepare(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  if (!call.args[3].is_none())
    return op_error(call, StatusCode::kUnsupported, "a bias is not supported");
  if (!call.args[4].is_none() &&
      !(call.args[4].kind == ArgKind::kDType && DType(call.args[4].i) == DType::kFloat32))
    return op_error(call, StatusCode::kUnsupported, "out_dtype must be None or float32");
  if (call.args[2].is_none())
    return op_error(call, StatusCode::kUnsupported, "only the 2-D x 3-D form with offs");
  return grouped_mm_common(call);
}

Status grouped_mm_run(const GroupedMmParams& p, const KernelCall& call) {
  const float* x = call.inputs[0].data_as<const float>();
  const float* w = call.inputs[1].data_as<const float>();
  const Tensor& offs = call.inputs[2];
  float* y = call.outputs[0].data_as<float>();
  std::fill(y, y + p.s * p.n, 0.0f);
  const auto [se, sk, sn] = p.w_strides;
  int64_t start = 0;
  for (int64_t e = 0; e < p.experts; ++e) {
    const int64_t end = offs.dtype == DType::kInt32 ? offs.data_as<const int32_t>()[e]
                                                    : offs.data_as<const int64_t>()[e];
    if (end < start || end > p.s)
      return op_error(call, StatusCode::kInvalidArgument, "offs[", e, "] = ", end, " is not in [",
                      start, ", ", p.s, "]");
    const float* we = w + e * se;
    for (int64_t r = start; r < end; ++r)
      for (int64_t kk = 0; kk < p.k; ++kk) {
        const float a = x[r * p.k + kk];
        for (int64_t j = 0; j < p.n; ++j) y[r * p.n + j] += a * we[kk * sk + j * sn];
      }
    start = end;
  }
  return ok_status();
}

}  // namespace

void register_matmul_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::bmm", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_bmm>>},
      {"aten::matmul", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_matmul>>},
      {"aten::baddbmm", kCpu, kF32, kRef, &make_kernel<MatmulRef<matmul_prepare_baddbmm>>},
      {"aten::bmm", kCpu, kF64, kRef, &make_kernel<MatmulRef<matmul_prepare_bmm>>},
      {"aten::matmul", kCpu, kF64, kRef, &make_kernel<MatmulRef<matmul_prepare_matmul>>},
      {"aten::baddbmm", kCpu, kF64, kRef, &make_kernel<MatmulRef<matmul_prepare_baddbmm>>},
      {"transformers::grouped_mm_fallback", kCpu, kF32, kRef,
       &make_kernel<CheckedKernel<GroupedMmParams, grouped_mm_prepare, grouped_mm_run>>},
      {"aten::_grouped_mm", kCpu, kF32, kRef,
       &make_kernel<CheckedKernel<GroupedMmParams, aten_grouped_mm_prepare, grouped_mm_run>>},
  });
}
}  // namespace tir::kernels
