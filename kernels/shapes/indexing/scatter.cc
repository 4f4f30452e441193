#include "kernels/shapes/indexing/scatter.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

Result<IndexCopyParams> index_copy_common(const KernelCall& call, PrepareInfo* out_info,
                                          bool in_place) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const Tensor* index, tensor_arg(call, 2, "index"));
  TIR_ASSIGN_OR_RETURN(const Tensor* src, tensor_arg(call, 3, "source"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *index, "index"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *src, "source"));
  if (dtype_size(x->dtype) == 0) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has an undefined dtype");
  }
  if (index->dtype != DType::kInt64) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'index' must be int64, got ",
                    dtype_name(index->dtype));
  }
  if (index->rank > 1) {
    return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                    " must be 0-D or 1-D");
  }
  if (src->dtype != x->dtype) {
    return op_error(call, StatusCode::kInvalidArgument, "source dtype ", dtype_name(src->dtype),
                    " does not match self dtype ", dtype_name(x->dtype));
  }
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, x->rank, "dim"));
  if (src->rank != x->rank) {
    return op_error(call, StatusCode::kInvalidArgument, "source ", shape_str(src->shape()),
                    " and self ", shape_str(x->shape()), " must have the same number of dims");
  }
  for (int d = 0; d < x->rank; ++d) {
    if (d != dim && src->sizes[d] != x->sizes[d]) {
      return op_error(call, StatusCode::kInvalidArgument, "source ", shape_str(src->shape()),
                      " does not match self ", shape_str(x->shape()), " outside dim ", dim);
    }
  }
  const int64_t n_src = x->rank ? src->sizes[dim] : 1;
  if (index->numel() != n_src) {
    return op_error(call, StatusCode::kInvalidArgument, "index has ", index->numel(),
                    " entries but source has ", n_src, " along dim ", dim);
  }
  IndexCopyParams p;
  p.elem_size = dtype_size(x->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  p.index_input = static_cast<int>(tensor_input_index(call, 2));
  p.source_input = static_cast<int>(tensor_input_index(call, 3));
  p.in_place = in_place;
  p.dim = dim;
  p.n_index = n_src;
  if (x->rank > 0) {
    p.outer = prod(x->shape(), 0, dim);
    p.dim_size = x->sizes[dim];
    p.inner = prod(x->shape(), dim + 1, x->rank);
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  if (in_place) out_info->output_alias[0] = static_cast<int8_t>(p.self_input);
  return p;
}

Result<IndexPutParams> index_put_common(const KernelCall& call, PrepareInfo* out_info,
                                        bool in_place) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* values, tensor_arg(call, 2, "values"));
  TIR_ASSIGN_OR_RETURN(bool accumulate, bool_arg(call, 3, "accumulate"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *values, "values"));
  if (values->dtype != x->dtype) {
    return op_error(call, StatusCode::kInvalidArgument, "values dtype ", dtype_name(values->dtype),
                    " does not match self dtype ", dtype_name(x->dtype));
  }
  if (accumulate && !dtype_supported(x->dtype)) {
    return op_error(call, StatusCode::kUnsupported, "accumulate=True is not supported for ",
                    dtype_name(x->dtype), " (bool, int32, int64, float32, float64)");
  }
  IndexPutParams p;
  // Where self[indices] lives: index.Tensor's walk, whose output is the indexed shape.
  Tensor indexed;
  const KernelCall sub{call.op, call.node, call.args.first(2), call.inputs, {&indexed, 1}};
  TIR_ASSIGN_OR_RETURN(p.index, index_prepare_index(sub, out_info));
  IndexParams& ip = p.index;
  const int tail = indexed.rank - ip.rank;  // the last `tail` dims of self, not indexed
  for (int k = 0; k < tail; ++k) {
    const int sd = x->rank - tail + k;
    ip.sizes[ip.rank] = x->sizes[sd];
    ip.self_strides[ip.rank] = x->strides[sd];
    ++ip.rank;
  }
  ip.inner = 1;
  // values broadcast to the indexed shape (numpy rules, never to a higher rank).
  const int vr = values->rank;
  bool fits = vr <= ip.rank;
  for (int d = 0; fits && d < ip.rank; ++d) {
    const int k = d - (ip.rank - vr);
    if (k < 0 || values->sizes[k] == 1) continue;  // broadcast: stride 0
    fits = values->sizes[k] == ip.sizes[d];
    p.values_strides[d] = values->strides[k];
  }
  if (!fits) {
    return op_error(call, StatusCode::kInvalidArgument, "values ", shape_str(values->shape()),
                    " cannot be broadcast to the indexed shape ", shape_str(indexed.shape()));
  }
  p.values_input = static_cast<int>(tensor_input_index(call, 2));
  p.dtype = x->dtype;
  p.accumulate = accumulate;
  p.in_place = in_place;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  if (in_place) out_info->output_alias[0] = static_cast<int8_t>(ip.self_input);
  return p;
}

}  // namespace

Result<IndexCopyParams> scatter_prepare_index_copy(const KernelCall& call, PrepareInfo* out_info) {
  return index_copy_common(call, out_info, false);
}

Result<IndexCopyParams> scatter_prepare_index_copy_(const KernelCall& call, PrepareInfo* out_info) {
  return index_copy_common(call, out_info, true);
}

Result<IndexPutParams> scatter_prepare_index_put(const KernelCall& call, PrepareInfo* out_info) {
  return index_put_common(call, out_info, false);
}

Result<IndexPutParams> scatter_prepare_index_put_(const KernelCall& call, PrepareInfo* out_info) {
  return index_put_common(call, out_info, true);
}

}  // namespace tir::kernels
