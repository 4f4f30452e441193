#include "kernels/shapes/indexing/scatter.h"

#include <algorithm>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

/// self viewed as [outer, rows along dim, inner]; the output is self's shape (self itself
/// in place).
void set_rows(const KernelCall& call, const Tensor& x, int dim, bool in_place, IndexCopyParams& p,
              PrepareInfo* out_info) {
  if (x.rank > 0) {
    p.outer = prod(x.shape(), 0, dim);
    p.dim_size = x.sizes[dim];
    p.inner = prod(x.shape(), dim + 1, x.rank);
  }
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(x.shape());
  p.in_place = in_place;
  if (in_place) out_info->output_alias[0] = static_cast<int8_t>(p.self_input);
}

Result<IndexCopyParams> index_copy_common(const KernelCall& call, PrepareInfo* out_info,
                                          bool in_place, bool add = false) {
  TIR_RETURN_IF_ERROR(check_arity(call, add ? 5 : 4, 1));
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
  if (add) {
    TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
    TIR_ASSIGN_OR_RETURN(double alpha, scalar_arg(call, 4, "alpha"));
    (void)alpha;
    p.alpha = scalar_value(call.args[4]);
    p.add = true;
  }
  p.dtype = x->dtype;
  p.elem_size = dtype_size(x->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  p.index_input = static_cast<int>(tensor_input_index(call, 2));
  p.source_input = static_cast<int>(tensor_input_index(call, 3));
  p.dim = dim;
  p.n_index = n_src;
  set_rows(call, *x, dim, in_place, p, out_info);
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
  TIR_ASSIGN_OR_RETURN(p.index, index_prepare_put_walk(sub, out_info));
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
    // A run-time mask's count is found in run, which checks values against it.
    fits = values->sizes[k] == ip.sizes[d] || (ip.mask_dynamic && d == ip.mask_walk_dim);
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

namespace {

Result<IndexCopyParams> index_fill_common(const KernelCall& call, PrepareInfo* out_info,
                                          bool in_place) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(int64_t raw_dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const Tensor* index, tensor_arg(call, 2, "index"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *index, "index"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  if (index->dtype != DType::kInt64 || index->rank > 1)
    return op_error(call, StatusCode::kInvalidArgument, "index must be a 0-D or 1-D int64 tensor");
  TIR_ASSIGN_OR_RETURN(int dim, normalize_dim(call, raw_dim, std::max(x->rank, 1), "dim"));
  IndexCopyParams p;
  p.fill = true;
  if (call.args[3].kind == ArgKind::kTensor) {
    TIR_ASSIGN_OR_RETURN(const Tensor* v, tensor_arg(call, 3, "value"));
    if (v->rank != 0 || !dtype_supported(v->dtype))
      return op_error(call, StatusCode::kInvalidArgument, "value must be a 0-D tensor");
    p.value_input = static_cast<int>(tensor_input_index(call, 3));
  } else {
    TIR_ASSIGN_OR_RETURN(double v, scalar_arg(call, 3, "value"));
    (void)v;
    p.value = scalar_value(call.args[3]);
  }
  p.dtype = x->dtype;
  p.elem_size = dtype_size(x->dtype);
  p.self_input = static_cast<int>(tensor_input_index(call, 0));
  p.index_input = static_cast<int>(tensor_input_index(call, 2));
  p.dim = dim;
  p.n_index = index->numel();
  set_rows(call, *x, dim, in_place, p, out_info);
  return p;
}

}  // namespace

Result<IndexCopyParams> scatter_prepare_index_fill(const KernelCall& call, PrepareInfo* out_info) {
  return index_fill_common(call, out_info, false);
}

Result<IndexCopyParams> scatter_prepare_index_fill_(const KernelCall& call, PrepareInfo* out_info) {
  return index_fill_common(call, out_info, true);
}

Result<IndexCopyParams> scatter_prepare_index_add(const KernelCall& call, PrepareInfo* out_info) {
  return index_copy_common(call, out_info, false, true);
}

Result<IndexCopyParams> scatter_prepare_index_add_(const KernelCall& call, PrepareInfo* out_info) {
  return index_copy_common(call, out_info, true, true);
}

Result<IndexPutParams> scatter_prepare_index_put(const KernelCall& call, PrepareInfo* out_info) {
  return index_put_common(call, out_info, false);
}

Result<IndexPutParams> scatter_prepare_index_put_(const KernelCall& call, PrepareInfo* out_info) {
  return index_put_common(call, out_info, true);
}

namespace {

Result<ScatterRegionParams> region_common(const KernelCall& call, const Tensor*& self,
                                          const Tensor*& src) {
  if (call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects one output");
  TIR_ASSIGN_OR_RETURN(self, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(src, tensor_arg(call, 1, "src"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *self, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *src, "src"));
  if (self->dtype != src->dtype)
    return op_error(call, StatusCode::kInvalidArgument, "src has dtype ", dtype_name(src->dtype),
                    ", self ", dtype_name(self->dtype));
  ScatterRegionParams p;
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.src = static_cast<int>(tensor_input_index(call, 1));
  p.elem_size = dtype_size(self->dtype);
  p.rank = src->rank;
  for (int d = 0; d < src->rank; ++d) p.src_sizes[d] = src->sizes[d];
  call.outputs[0].dtype = self->dtype;
  call.outputs[0].set_shape(self->shape());
  return p;
}

Status check_src_shape(const KernelCall& call, std::span<const int64_t> want, const Tensor& src) {
  if (std::equal(want.begin(), want.end(), src.shape().begin(), src.shape().end()))
    return ok_status();
  return op_error(call, StatusCode::kInvalidArgument, "src has shape ", shape_str(src.shape()),
                  ", the region has ", shape_str(want));
}

}  // namespace

Result<ScatterRegionParams> scatter_prepare_slice_scatter(const KernelCall& call,
                                                          PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() != 6)
    return op_error(call, StatusCode::kInvalidArgument,
                    "expects (self, src, dim, start, end, step)");
  const Tensor *self = nullptr, *src = nullptr;
  TIR_ASSIGN_OR_RETURN(ScatterRegionParams p, region_common(call, self, src));
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, self->rank, "dim"));
  const int64_t n = self->sizes[dim];
  int64_t start = 0, end = n;
  if (!call.args[3].is_none()) {
    TIR_ASSIGN_OR_RETURN(start, int_arg(call, 3, "start"));
  }
  if (!call.args[4].is_none()) {
    TIR_ASSIGN_OR_RETURN(end, int_arg(call, 4, "end"));
  }
  TIR_ASSIGN_OR_RETURN(const int64_t step, int_arg(call, 5, "step"));
  if (step <= 0) return op_error(call, StatusCode::kInvalidArgument, "step must be positive");
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  std::array<int64_t, kMaxRank> want{};
  for (int d = 0; d < self->rank; ++d) want[d] = self->sizes[d];
  want[dim] = (end - start + step - 1) / step;
  TIR_RETURN_IF_ERROR(
      check_src_shape(call, std::span<const int64_t>(want.data(), self->rank), *src));
  for (int d = 0; d < self->rank; ++d) p.dst_strides[d] = self->strides[d];
  p.dst_strides[dim] *= step;
  p.dst_offset = start * self->strides[dim];
  return p;
}

Result<ScatterRegionParams> scatter_prepare_select_scatter(const KernelCall& call,
                                                           PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() != 4)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, src, dim, index)");
  const Tensor *self = nullptr, *src = nullptr;
  TIR_ASSIGN_OR_RETURN(ScatterRegionParams p, region_common(call, self, src));
  if (self->rank == 0) return op_error(call, StatusCode::kInvalidArgument, "self is 0-d");
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, 2, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, self->rank, "dim"));
  TIR_ASSIGN_OR_RETURN(int64_t index, int_arg(call, 3, "index"));
  const int64_t n = self->sizes[dim];
  if (index < -n || index >= n)
    return op_error(call, StatusCode::kInvalidArgument, "index ", index, " is out of range for ",
                    n);
  if (index < 0) index += n;
  std::vector<int64_t> want;
  for (int d = 0; d < self->rank; ++d)
    if (d != dim) {
      want.push_back(self->sizes[d]);
      p.dst_strides[want.size() - 1] = self->strides[d];
    }
  TIR_RETURN_IF_ERROR(check_src_shape(call, want, *src));
  p.dst_offset = index * self->strides[dim];
  return p;
}

Result<MaskedScatterParams> scatter_prepare_masked_scatter(const KernelCall& call,
                                                           PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* mask, tensor_arg(call, 1, "mask"));
  TIR_ASSIGN_OR_RETURN(const Tensor* source, tensor_arg(call, 2, "source"));
  for (const auto& [t, name] :
       {std::pair{self, "self"}, std::pair{mask, "mask"}, std::pair{source, "source"}})
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  TIR_RETURN_IF_ERROR(require_dtype(call, *mask, DType::kBool, "mask"));
  if (source->dtype != self->dtype)
    return op_error(call, StatusCode::kInvalidArgument, "source has dtype ",
                    dtype_name(source->dtype), ", self ", dtype_name(self->dtype));
  MaskedScatterParams p;
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.mask = static_cast<int>(tensor_input_index(call, 1));
  p.source = static_cast<int>(tensor_input_index(call, 2));
  p.elem_size = dtype_size(self->dtype);
  const std::span<const int64_t> shapes[2] = {self->shape(), mask->shape()};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = self->dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return p;
}

}  // namespace tir::kernels
