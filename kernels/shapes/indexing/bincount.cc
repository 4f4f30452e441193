#include "kernels/shapes/indexing/bincount.h"

#include <algorithm>

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<BincountParams> bincount_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *self, "self"));
  if (self->rank != 1 || (self->dtype != DType::kInt64 && self->dtype != DType::kInt32))
    return op_error(call, StatusCode::kInvalidArgument,
                    "self must be a 1-D int32 or int64 tensor, got ", dtype_name(self->dtype),
                    shape_str(self->shape()));
  BincountParams p;
  p.self = static_cast<int>(tensor_input_index(call, 0));
  p.self_dtype = self->dtype;
  p.n = self->sizes[0];
  if (!call.args[1].is_none()) {
    TIR_ASSIGN_OR_RETURN(const Tensor* w, tensor_arg(call, 1, "weights"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "weights"));
    if (w->rank != 1 || w->sizes[0] != p.n || !dtype_is_float(w->dtype))
      return op_error(call, StatusCode::kInvalidArgument,
                      "weights must be a float tensor of self's length ", p.n, ", got ",
                      dtype_name(w->dtype), shape_str(w->shape()));
    p.weights = static_cast<int>(tensor_input_index(call, 1));
    p.out = w->dtype;
  }
  if (call.args[3].kind != ArgKind::kInt)
    return op_error(call, StatusCode::kInvalidArgument, "its output size was not bound");
  p.bins = call.args[3].i;
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(&p.bins, 1));
  return p;
}

Result<int64_t> bincount_size(const Tensor& self, int64_t minlength) {
  int64_t bins = 0;
  for (int64_t i = 0; i < self.numel(); ++i) {
    const int64_t v = self.dtype == DType::kInt32 ? int64_t{self.data_as<const int32_t>()[i]}
                                                  : self.data_as<const int64_t>()[i];
    if (v < 0) return make_error(StatusCode::kInvalidArgument, "bincount of a negative value ", v);
    bins = std::max(bins, v + 1);
  }
  return std::max(bins, minlength);
}

}  // namespace tir::kernels
