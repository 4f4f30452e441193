#include "kernels/shapes/reduction/any_diff.h"

#include <limits>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<ClampParams> misc_prepare_clamp(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  ClampParams p;
  p.lo = -std::numeric_limits<double>::infinity();
  p.hi = std::numeric_limits<double>::infinity();
  if (!call.args[1].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.lo, scalar_arg(call, 1, "min"));
  }
  if (!call.args[2].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.hi, scalar_arg(call, 2, "max"));
  }
  p.numel = x->numel();
  p.input = static_cast<int>(tensor_input_index(call, 0));
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(x->shape());
  return p;
}

Result<AnyParams> misc_prepare_any_dim(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->dtype != DType::kBool && x->dtype != DType::kInt32 && x->dtype != DType::kInt64 &&
      x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype),
                    ", only bool, int32, int64, float32 and float64 are supported");
  }
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  AnyParams p;
  p.in = x->dtype;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.outer = prod(x->shape(), 0, dim);
  p.n = x->rank == 0 ? 1 : x->sizes[dim];
  p.inner = prod(x->shape(), dim + 1, x->rank);
  std::vector<int64_t> out;
  for (int d = 0; d < x->rank; ++d) {
    if (d != dim)
      out.push_back(x->sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  call.outputs[0].dtype = DType::kBool;
  call.outputs[0].set_shape(out);
  return p;
}

Result<DiffParams> misc_prepare_diff(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t n, int_arg(call, 1, "n"));
  if (n != 1) return op_error(call, StatusCode::kUnsupported, "n = ", n, " (only n = 1)");
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64 && x->dtype != DType::kInt64) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), ", only float32, float64 and int64 are supported");
  }
  if (x->rank == 0) return op_error(call, StatusCode::kInvalidArgument, "self is 0-d");
  TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw, x->rank, "dim"));
  DiffParams p;
  p.dtype = x->dtype;
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.self_n = x->sizes[dim];
  p.outer = prod(x->shape(), 0, dim);
  p.inner = prod(x->shape(), dim + 1, x->rank);
  for (size_t idx : {size_t{3}, size_t{4}}) {
    const char* name = idx == 3 ? "prepend" : "append";
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, idx, name));
    if (!t) continue;
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, x->dtype, name));
    bool same = t->rank == x->rank;
    for (int d = 0; same && d < x->rank; ++d) same = d == dim || t->sizes[d] == x->sizes[d];
    if (!same) {
      return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' has shape ",
                      shape_str(t->shape()), ", incompatible with self ", shape_str(x->shape()));
    }
    (idx == 3 ? p.pre : p.post) = static_cast<int>(tensor_input_index(call, idx));
    (idx == 3 ? p.pre_n : p.post_n) = t->sizes[dim];
  }
  const int64_t total = p.pre_n + p.self_n + p.post_n;
  std::vector<int64_t> out(x->sizes.begin(), x->sizes.begin() + x->rank);
  out[dim] = total > 0 ? total - 1 : 0;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

}  // namespace tir::kernels
