#include "kernels/shapes/sort_select/select.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

using Kind = SelectParams::Kind;

Result<SelectParams> along(const KernelCall& call, Kind kind, size_t dim_idx, size_t keep_idx,
                           PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, keep_idx + 1, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, dim_idx, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, x->rank, "dim"));
  TIR_ASSIGN_OR_RETURN(const bool keepdim, bool_arg(call, keep_idx, "keepdim"));
  SelectParams p;
  p.kind = kind;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.dtype = x->dtype;
  std::vector<int64_t> shape;
  if (x->rank > 0) {
    p.outer = prod(x->shape(), 0, dim);
    p.n = x->sizes[dim];
    p.inner = prod(x->shape(), dim + 1, x->rank);
    for (int d = 0; d < x->rank; ++d)
      if (d != dim || keepdim) shape.push_back(d == dim ? 1 : x->sizes[d]);
  } else {
    p.n = 1;
  }
  if (p.n == 0 && p.outer * p.inner > 0)
    return op_error(call, StatusCode::kInvalidArgument, "cannot select from an empty dim ", dim);
  for (int k = 0; k < 2; ++k) {
    call.outputs[k].dtype = k == 0 ? x->dtype : DType::kInt64;
    call.outputs[k].set_shape(shape);
  }
  out_info->scratch_bytes = static_cast<size_t>(p.n) * sizeof(int64_t);
  return p;
}

}  // namespace

template <Kind K>
Result<SelectParams> select_prepare_all(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  if (x->numel() == 0)
    return op_error(call, StatusCode::kInvalidArgument, "median of an empty tensor");
  SelectParams p;
  p.kind = K;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.dtype = x->dtype;
  p.n = x->numel();
  p.indices = false;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(std::span<const int64_t>());
  out_info->scratch_bytes = static_cast<size_t>(p.n) * sizeof(int64_t);
  return p;
}

template <Kind K>
Result<SelectParams> select_prepare_dim(const KernelCall& call, PrepareInfo* out_info) {
  return along(call, K, 1, 2, out_info);
}

Result<SelectParams> select_prepare_kthvalue(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(SelectParams p, along(call, Kind::kKth, 2, 3, out_info));
  TIR_ASSIGN_OR_RETURN(p.k, int_arg(call, 1, "k"));
  if (p.k < 1 || p.k > p.n)
    return op_error(call, StatusCode::kInvalidArgument, "k = ", p.k,
                    " is out of range for a dim of size ", p.n);
  return p;
}

template Result<SelectParams> select_prepare_all<Kind::kMedian>(const KernelCall&, PrepareInfo*);
template Result<SelectParams> select_prepare_all<Kind::kNanMedian>(const KernelCall&, PrepareInfo*);
template Result<SelectParams> select_prepare_dim<Kind::kMedian>(const KernelCall&, PrepareInfo*);
template Result<SelectParams> select_prepare_dim<Kind::kNanMedian>(const KernelCall&, PrepareInfo*);
template Result<SelectParams> select_prepare_dim<Kind::kMode>(const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
