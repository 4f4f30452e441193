#include "kernels/shapes/indexing/embedding_bag.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<EmbeddingBagParams> embedding_bag_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, 4));
  TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 0, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* idx, tensor_arg(call, 1, "indices"));
  TIR_ASSIGN_OR_RETURN(const Tensor* off, tensor_arg(call, 2, "offsets"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *w, DType::kFloat32, "weight"));
  for (const Tensor* t : {w, idx, off}) TIR_RETURN_IF_ERROR(require_contiguous(call, *t, "input"));
  if (w->rank != 2 || idx->rank != 1 || off->rank != 1) {
    return op_error(call, StatusCode::kInvalidArgument, "weight ", shape_str(w->shape()),
                    ", indices ", shape_str(idx->shape()), " and offsets ", shape_str(off->shape()),
                    " must be 2-D, 1-D and 1-D");
  }
  if ((idx->dtype != DType::kInt64 && idx->dtype != DType::kInt32) || off->dtype != idx->dtype) {
    return op_error(call, StatusCode::kUnsupported, "indices and offsets must both be int64 or ",
                    "both int32, got ", dtype_name(idx->dtype), " and ", dtype_name(off->dtype));
  }
  EmbeddingBagParams p;
  TIR_ASSIGN_OR_RETURN(const int64_t mode, int_arg(call, 4, "mode"));
  if (mode < 0 || mode > 2) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "mode must be 0 (sum), 1 (mean) or 2 (max), "
                    "got ",
                    mode);
  }
  p.mode = static_cast<BagMode>(mode);
  TIR_ASSIGN_OR_RETURN(p.include_last_offset, bool_arg(call, 7, "include_last_offset"));
  if (!call.args[8].is_none()) {  // embedding_bag.padding_idx takes int? (None: no padding)
    TIR_ASSIGN_OR_RETURN(p.padding_idx, int_arg(call, 8, "padding_idx"));
  }
  TIR_ASSIGN_OR_RETURN(const Tensor* psw, optional_tensor_arg(call, 6, "per_sample_weights"));
  if (psw) {
    if (p.mode != BagMode::kSum) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "per_sample_weights is only supported for mode sum");
    }
    TIR_RETURN_IF_ERROR(require_dtype(call, *psw, DType::kFloat32, "per_sample_weights"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *psw, "per_sample_weights"));
    if (!psw->same_shape(*idx)) {
      return op_error(call, StatusCode::kInvalidArgument, "per_sample_weights ",
                      shape_str(psw->shape()), " must have the shape of indices ",
                      shape_str(idx->shape()));
    }
    p.per_sample = static_cast<int>(tensor_input_index(call, 6));
  }
  p.weight = static_cast<int>(tensor_input_index(call, 0));
  p.indices = static_cast<int>(tensor_input_index(call, 1));
  p.offsets = static_cast<int>(tensor_input_index(call, 2));
  p.rows = w->sizes[0];
  p.dim = w->sizes[1];
  p.count = idx->sizes[0];
  p.offset_count = off->sizes[0];
  p.index_dtype = idx->dtype;
  p.bags = p.offset_count - (p.include_last_offset ? 1 : 0);
  if (p.bags < 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "include_last_offset needs at least one offset");
  }
  const bool plain_sum = p.mode == BagMode::kSum && p.padding_idx < 0;
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape({p.bags, p.dim});
  for (int k = 1; k < 4; ++k) call.outputs[k].dtype = p.index_dtype;
  call.outputs[1].set_shape({plain_sum ? 0 : p.count});
  call.outputs[2].set_shape({p.bags});
  if (p.mode == BagMode::kMax) {
    call.outputs[3].set_shape({p.bags, p.dim});
  } else {
    call.outputs[3].set_shape({p.bags});
  }
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
