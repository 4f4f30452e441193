#include "kernels/shapes/indexing/embedding.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<EmbeddingParams> embedding_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 0, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* idx, tensor_arg(call, 1, "indices"));
  if (w->dtype != DType::kFloat32 && w->dtype != DType::kFloat16 && w->dtype != DType::kBFloat16)
    return op_error(call, StatusCode::kUnsupported, "argument 'weight' has dtype ",
                    dtype_name(w->dtype), " (supported: float32, float16, bfloat16)");
  TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weight"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *idx, "indices"));
  if (w->rank != 2) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "argument 'weight' must be 2-D [num_embeddings, dim], got ",
                    shape_str(w->shape()));
  }
  if (idx->dtype != DType::kInt64 && idx->dtype != DType::kInt32) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "argument 'indices' must be int64 or int32, got ", dtype_name(idx->dtype));
  }
  if (idx->rank + 1 > kMaxRank) {
    return op_error(call, StatusCode::kUnsupported, "argument 'indices' has rank ", idx->rank);
  }
  EmbeddingParams p;
  p.num_embeddings = w->sizes[0];
  p.dim = w->sizes[1];
  p.dtype = w->dtype;
  p.count = idx->numel();
  p.index_dtype = idx->dtype;
  p.weight = static_cast<int>(tensor_input_index(call, 0));
  p.indices = static_cast<int>(tensor_input_index(call, 1));
  std::vector<int64_t> out(idx->shape().begin(), idx->shape().end());
  out.push_back(p.dim);
  call.outputs[0].dtype = w->dtype;
  call.outputs[0].set_shape(out);
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
