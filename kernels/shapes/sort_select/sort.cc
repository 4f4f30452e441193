#include "kernels/shapes/sort_select/sort.h"

namespace tir::kernels {
namespace {

Result<SortParams> common(const KernelCall& call, size_t dim_idx, PrepareInfo* out_info,
                          size_t outputs = 2) {
  if (call.outputs.size() != outputs)
    return op_error(call, StatusCode::kInvalidArgument, "expects ", outputs, " outputs");
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, dim_idx, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, x->rank, "dim"));
  SortParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.dtype = x->dtype;
  if (x->rank > 0) {
    p.outer = prod(x->shape(), 0, dim);
    p.n = x->sizes[dim];
    p.inner = prod(x->shape(), dim + 1, x->rank);
  } else {
    p.n = 1;
  }
  p.k = p.n;
  out_info->scratch_bytes = static_cast<size_t>(p.n) * sizeof(int64_t);
  return p;
}

void set_outputs(const KernelCall& call, const SortParams& p, int dim_rank_index) {
  const Tensor& x = call.inputs[p.input];
  for (int k = p.indices_only ? 1 : 0; k < 2; ++k) {
    Tensor& o = call.outputs[p.indices_only ? 0 : k];
    o.dtype = k == 0 ? x.dtype : DType::kInt64;
    o.set_shape(x.shape());
    if (x.rank > 0) {
      o.sizes[dim_rank_index] = p.k;
      o.set_contiguous_strides();
    }
  }
}

}  // namespace

template <bool Stable>
Result<SortParams> sort_prepare_sort(const KernelCall& call, PrepareInfo* out_info) {
  const size_t dim_idx = Stable ? 2 : 1, desc_idx = Stable ? 3 : 2;
  TIR_RETURN_IF_ERROR(check_arity(call, desc_idx + 1, 2));
  TIR_ASSIGN_OR_RETURN(SortParams p, common(call, dim_idx, out_info));
  TIR_ASSIGN_OR_RETURN(p.descending, bool_arg(call, desc_idx, "descending"));
  const Tensor& x = call.inputs[p.input];
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, dim_idx, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, x.rank, "dim"));
  set_outputs(call, p, dim);
  return p;
}

template <bool Stable>
Result<SortParams> sort_prepare_argsort(const KernelCall& call, PrepareInfo* out_info) {
  const size_t dim_idx = Stable ? 2 : 1, desc_idx = Stable ? 3 : 2;
  TIR_RETURN_IF_ERROR(check_arity(call, desc_idx + 1, 1));
  TIR_ASSIGN_OR_RETURN(SortParams p, common(call, dim_idx, out_info, 1));
  TIR_ASSIGN_OR_RETURN(p.descending, bool_arg(call, desc_idx, "descending"));
  p.indices_only = true;
  const Tensor& x = call.inputs[p.input];
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, dim_idx, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, x.rank, "dim"));
  set_outputs(call, p, dim);
  return p;
}

template Result<SortParams> sort_prepare_argsort<true>(const KernelCall&, PrepareInfo*);
template Result<SortParams> sort_prepare_argsort<false>(const KernelCall&, PrepareInfo*);
template Result<SortParams> sort_prepare_sort<true>(const KernelCall&, PrepareInfo*);
template Result<SortParams> sort_prepare_sort<false>(const KernelCall&, PrepareInfo*);

Result<SortParams> sort_prepare_topk(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 2));
  TIR_ASSIGN_OR_RETURN(SortParams p, common(call, 2, out_info));
  TIR_ASSIGN_OR_RETURN(p.k, int_arg(call, 1, "k"));
  TIR_ASSIGN_OR_RETURN(const bool largest, bool_arg(call, 3, "largest"));
  p.descending = largest;
  p.topk = true;
  TIR_ASSIGN_OR_RETURN(p.sorted, bool_arg(call, 4, "sorted"));
  if (p.k < 0 || p.k > p.n)
    return op_error(call, StatusCode::kInvalidArgument, "k ", p.k, " is out of range for size ",
                    p.n);
  const Tensor& x = call.inputs[p.input];
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, x.rank, "dim"));
  set_outputs(call, p, dim);
  return p;
}

}  // namespace tir::kernels
