#include "kernels/shapes/indexing/scatter_dim.h"

namespace tir::kernels {
namespace {

Result<ScatterDimParams> common(const KernelCall& call, ScatterReduce reduce,
                                PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* index, tensor_arg(call, 2, "index"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *self, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *index, "index"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *self, "self"));
  if (index->dtype != DType::kInt32)
    TIR_RETURN_IF_ERROR(require_dtype(call, *index, DType::kInt64, "index"));
  TIR_ASSIGN_OR_RETURN(const int64_t dim_arg, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const int dim, normalize_dim(call, dim_arg, self->rank, "dim"));
  ScatterDimParams p;
  p.reduce = reduce;
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.index = static_cast<int>(tensor_input_index(call, 2));
  p.index_int32 = index->dtype == DType::kInt32;
  p.dtype = self->dtype;
  p.rank = self->rank;
  p.dim = dim;
  p.out_numel = self->numel();
  const bool scalar_index = index->rank == 0 && self->rank <= 1;
  if (index->rank != self->rank && !scalar_index)
    return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                    " must have the rank of self ", shape_str(self->shape()));
  const Tensor* src = nullptr;
  if (call.args[3].kind == ArgKind::kTensor) {
    TIR_ASSIGN_OR_RETURN(src, tensor_arg(call, 3, "src"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *src, "src"));
    if (src->dtype != self->dtype)
      return op_error(call, StatusCode::kInvalidArgument, "src has dtype ", dtype_name(src->dtype),
                      ", self ", dtype_name(self->dtype));
    p.src = static_cast<int>(tensor_input_index(call, 3));
  } else {
    TIR_ASSIGN_OR_RETURN(double v, scalar_arg(call, 3, "value"));
    (void)v;
    p.value = scalar_value(call.args[3]);
  }
  for (int d = 0; d < index->rank; ++d) {
    p.index_sizes[d] = index->sizes[d];
    p.out_strides[d] = self->strides[d];
    if (d != dim && index->sizes[d] > self->sizes[d])
      return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                      " is larger than self ", shape_str(self->shape()), " in dim ", d);
    if (src) {
      if (src->rank != index->rank || index->sizes[d] > src->sizes[d])
        return op_error(call, StatusCode::kInvalidArgument, "index ", shape_str(index->shape()),
                        " is larger than src ", shape_str(src->shape()));
      p.src_strides[d] = src->strides[d];
    }
  }
  if (index->rank == 0) {  // a 0-d index of a 0-d or 1-D self: one position
    p.rank = 1;
    p.index_sizes[0] = 1;
    p.out_strides[0] = self->rank ? self->strides[0] : 1;
    p.src_strides[0] = 0;
  }
  p.rank = index->rank == 0 ? 1 : index->rank;
  out_info->scratch_bytes = static_cast<size_t>(p.out_numel) * sizeof(int64_t);
  call.outputs[0].dtype = self->dtype;
  call.outputs[0].set_shape(self->shape());
  return p;
}

}  // namespace

Result<ScatterDimParams> scatter_dim_prepare_scatter(const KernelCall& call,
                                                     PrepareInfo* out_info) {
  return common(call, ScatterReduce::kNone, out_info);
}

Result<ScatterDimParams> scatter_dim_prepare_add(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(ScatterDimParams p, common(call, ScatterReduce::kSum, out_info));
  if (p.src < 0) return op_error(call, StatusCode::kInvalidArgument, "src must be a tensor");
  return p;
}

Result<ScatterDimParams> scatter_dim_prepare_reduce(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  const Arg& r = call.args[4];
  ScatterReduce reduce = ScatterReduce::kNone;
  if (r.kind == ArgKind::kString) {
    if (r.s == "sum") reduce = ScatterReduce::kSum;
    if (r.s == "prod") reduce = ScatterReduce::kProd;
    if (r.s == "mean") reduce = ScatterReduce::kMean;
    if (r.s == "amax") reduce = ScatterReduce::kAmax;
    if (r.s == "amin") reduce = ScatterReduce::kAmin;
  }
  if (reduce == ScatterReduce::kNone)
    return op_error(call, StatusCode::kInvalidArgument,
                    "reduce must be one of sum, prod, mean, amax, amin, got '", r.s, "'");
  TIR_ASSIGN_OR_RETURN(ScatterDimParams p, common(call, reduce, out_info));
  if (p.src < 0) return op_error(call, StatusCode::kInvalidArgument, "src must be a tensor");
  TIR_ASSIGN_OR_RETURN(p.include_self, bool_arg(call, 5, "include_self"));
  return p;
}

}  // namespace tir::kernels
