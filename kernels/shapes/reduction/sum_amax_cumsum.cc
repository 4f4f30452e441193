#include "kernels/shapes/reduction/sum_amax_cumsum.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

// torch sums and cumsums integers and bools in int64.
DType accumulate_dtype(DType in, DType requested) {
  if (requested != DType::kUndefined) return requested;
  return dtype_is_float(in) ? in : DType::kInt64;
}

}  // namespace

Result<ReduceCastParams> sum_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(auto dims, optional_ints_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  TIR_ASSIGN_OR_RETURN(DType requested, optional_dtype_arg(call, 3, "dtype"));
  ReduceCastParams p;
  p.in = x->dtype;
  p.out = accumulate_dtype(x->dtype, requested);
  if (p.out == DType::kBool || p.out == DType::kInt32) {
    return op_error(call, StatusCode::kUnsupported, "sum into ", dtype_name(p.out));
  }
  std::vector<int64_t> out;
  TIR_ASSIGN_OR_RETURN(p.r, plan_reduce(call, *x, dims, keepdim, &out));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

Result<ReduceCastParams> amax_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kInt64) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), ", only float32 and int64 are supported");
  }
  TIR_ASSIGN_OR_RETURN(auto dims, ints_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  ReduceCastParams p;
  p.in = p.out = x->dtype;
  std::vector<int64_t> out;
  TIR_ASSIGN_OR_RETURN(p.r, plan_reduce(call, *x, dims, keepdim, &out));
  for (int d = 0; d < x->rank; ++d) {
    if (p.r.reduced[d] && x->sizes[d] == 0) {
      return op_error(call, StatusCode::kInvalidArgument, "cannot take the maximum over dim ", d,
                      " of size 0");
    }
  }
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

namespace {

Result<CumsumParams> cumulative_prepare(const KernelCall& call, Scan scan) {
  const bool log = scan == Scan::kLogsumexp;
  const bool extremum = scan == Scan::kMax || scan == Scan::kMin;
  TIR_RETURN_IF_ERROR(check_arity(call, log || extremum ? 2 : 3, extremum ? 2 : 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  CumsumParams p;
  p.scan = scan;
  p.in = x->dtype;
  if (log && !dtype_is_float(x->dtype))
    return op_error(call, StatusCode::kUnsupported, "logcumsumexp of ", dtype_name(x->dtype));
  if (log || extremum) {
    p.out = x->dtype;
  } else {
    TIR_ASSIGN_OR_RETURN(DType requested, optional_dtype_arg(call, 2, "dtype"));
    p.out = accumulate_dtype(x->dtype, requested);
  }
  if (p.out == DType::kBool && !extremum)
    return op_error(call, StatusCode::kUnsupported, "a cumulative product or sum into bool");
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.outer = prod(x->shape(), 0, dim);
  p.n = x->rank == 0 ? 1 : x->sizes[dim];
  p.inner = prod(x->shape(), dim + 1, x->rank);
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(x->shape());
  if (extremum) {
    call.outputs[1].dtype = DType::kInt64;
    call.outputs[1].set_shape(x->shape());
  }
  return p;
}

}  // namespace

Result<CumsumParams> cumsum_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return cumulative_prepare(call, Scan::kSum);
}

Result<CumsumParams> cumprod_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return cumulative_prepare(call, Scan::kProd);
}

Result<CumsumParams> logcumsumexp_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return cumulative_prepare(call, Scan::kLogsumexp);
}

template <Scan S>
Result<CumsumParams> cumulative_extremum_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return cumulative_prepare(call, S);
}

template Result<CumsumParams> cumulative_extremum_prepare<Scan::kMax>(const KernelCall&,
                                                                      PrepareInfo*);
template Result<CumsumParams> cumulative_extremum_prepare<Scan::kMin>(const KernelCall&,
                                                                      PrepareInfo*);

}  // namespace tir::kernels
