#include "kernels/shapes/unary/dropout.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<ViewParams> dropout_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 3));
  TIR_ASSIGN_OR_RETURN(bool train, bool_arg(call, 2, "train"));
  if (train) {
    return op_error(call, StatusCode::kUnsupported,
                    "train=True is not supported (export the model in eval mode)");
  }
  return view_alias(call, *x, x->shape(), out_info);
}

Result<DropoutParams> dropout_prepare_native(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  if (!call.args[2].is_none()) {
    TIR_ASSIGN_OR_RETURN(const bool train, bool_arg(call, 2, "train"));
    if (train)
      return op_error(call, StatusCode::kUnsupported,
                      "dropout in training mode (random masks) is not supported");
  }
  DropoutParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.nbytes = x->nbytes();
  p.numel = x->numel();
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  call.outputs[1].dtype = DType::kBool;
  call.outputs[1].set_shape(x->shape());
  return p;
}

}  // namespace tir::kernels
