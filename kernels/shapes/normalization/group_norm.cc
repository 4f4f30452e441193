#include "kernels/shapes/normalization/group_norm.h"

#include <tuple>

#include "kernels/kernel_util.h"

namespace tir::kernels {

namespace {

Result<const Tensor*> float32_input(const KernelCall& call, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, name));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, name));
  return x;
}

/// The input of group norm: float32, or float64 as torch's double kernels.
Result<const Tensor*> group_norm_input(const KernelCall& call, GroupNormParams* p) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  if (x->dtype != DType::kFloat64)
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  p->dtype = x->dtype;
  return x;
}

Status group_norm_common(const KernelCall& call, const Tensor& x, GroupNormParams& p,
                         size_t weight_idx, size_t bias_idx) {
  if (x.rank < 2) return op_error(call, StatusCode::kInvalidArgument, "input must be at least 2-D");
  p.input = static_cast<int>(tensor_input_index(call, 0));
  if (p.groups <= 0 || p.c % p.groups != 0)
    return op_error(call, StatusCode::kInvalidArgument, "channels ", p.c,
                    " are not divisible into ", p.groups, " groups");
  for (auto [idx, out, name] :
       {std::tuple{weight_idx, &p.weight, "weight"}, std::tuple{bias_idx, &p.bias, "bias"}}) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, idx, name));
    if (!t) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, p.dtype, name));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
    if (t->numel() != p.c)
      return op_error(call, StatusCode::kInvalidArgument, name, " must have ", p.c,
                      " elements, got ", shape_str(t->shape()));
    *out = static_cast<int>(tensor_input_index(call, idx));
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(x.shape());
  return ok_status();
}

}  // namespace

Result<GroupNormParams> group_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 3));
  GroupNormParams p;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, group_norm_input(call, &p));
  p.stats = true;
  TIR_ASSIGN_OR_RETURN(p.n, int_arg(call, 3, "N"));
  TIR_ASSIGN_OR_RETURN(p.c, int_arg(call, 4, "C"));
  TIR_ASSIGN_OR_RETURN(p.hw, int_arg(call, 5, "HxW"));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 6, "group"));
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 7, "eps"));
  if (p.n * p.c * p.hw != x->numel() || (x->rank >= 2 && x->sizes[1] != p.c))
    return op_error(call, StatusCode::kInvalidArgument, "N, C, HxW do not match input ",
                    shape_str(x->shape()));
  TIR_RETURN_IF_ERROR(group_norm_common(call, *x, p, 1, 2));
  for (int k = 1; k < 3; ++k) {
    call.outputs[k].dtype = p.dtype;
    call.outputs[k].set_shape({p.n, p.groups});
  }
  return p;
}

Result<GroupNormParams> group_norm_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  GroupNormParams p;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, group_norm_input(call, &p));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 1, "num_groups"));
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 4, "eps"));
  if (x->rank < 2) return op_error(call, StatusCode::kInvalidArgument, "input must be >= 2-D");
  p.n = x->sizes[0];
  p.c = x->sizes[1];
  p.hw = prod(x->shape(), 2, x->rank);
  TIR_RETURN_IF_ERROR(group_norm_common(call, *x, p, 2, 3));
  return p;
}

Result<WeightNormParams> weight_norm_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* v, float32_input(call, "v"));
  TIR_ASSIGN_OR_RETURN(const Tensor* g, tensor_arg(call, 1, "g"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *g, DType::kFloat32, "g"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *g, "g"));
  TIR_ASSIGN_OR_RETURN(const int64_t dim, int_arg(call, 2, "dim"));
  WeightNormParams p;
  p.v = static_cast<int>(tensor_input_index(call, 0));
  p.g = static_cast<int>(tensor_input_index(call, 1));
  if (dim == -1) {
    p.inner = v->numel();
  } else {
    TIR_ASSIGN_OR_RETURN(const int d, normalize_dim(call, dim, v->rank, "dim"));
    p.outer = prod(v->shape(), 0, d);
    p.n = v->rank ? v->sizes[d] : 1;
    p.inner = prod(v->shape(), d + 1, v->rank);
  }
  if (g->numel() != p.n)
    return op_error(call, StatusCode::kInvalidArgument, "g ", shape_str(g->shape()), " must have ",
                    p.n, " elements");
  out_info->scratch_bytes = static_cast<size_t>(p.n) * sizeof(double);
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(v->shape());
  return p;
}

}  // namespace tir::kernels
