#include "kernels/shapes/movement/convert.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

// The conversion of input `self` to `requested` (kUndefined keeps the dtype).
Result<ConvertParams> convert_self(const KernelCall& call, DType requested, bool may_alias,
                                   PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_valid_dtype(call, *x, "self"));
  ConvertParams p;
  p.in = x->dtype;
  p.out = requested == DType::kUndefined ? x->dtype : requested;
  p.numel = x->numel();
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.alias = may_alias && p.in == p.out;
  if (p.alias) out_info->output_alias[0] = static_cast<int8_t>(p.input);
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(x->shape());
  return p;
}

}  // namespace

Result<ConvertParams> convert_prepare_to_copy(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, 1, "dtype", true));
  return convert_self(call, d, false, out_info);
}

Result<ConvertParams> convert_prepare_to_dtype(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, 1, "dtype", true));
  if (d == DType::kUndefined) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'dtype' must not be None");
  }
  TIR_ASSIGN_OR_RETURN(bool copy, bool_arg(call, 3, "copy"));
  return convert_self(call, d, !copy, out_info);
}

Result<ConvertParams> convert_prepare_to_device(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  const Arg& device = call.args[1];
  if (device.kind != ArgKind::kDevice || device.s != "cpu") {
    return op_error(call, StatusCode::kUnsupported, "argument 'device' must be cpu");
  }
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, 2, "dtype", true));
  TIR_ASSIGN_OR_RETURN(bool copy, bool_arg(call, 4, "copy"));
  return convert_self(call, d, !copy, out_info);
}

Result<ConvertParams> convert_prepare_to_dtype_layout(const KernelCall& call,
                                                      PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 1));
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, 1, "dtype", true));
  TIR_ASSIGN_OR_RETURN(bool copy, bool_arg(call, 6, "copy"));
  return convert_self(call, d, !copy, out_info);
}

Result<ConvertParams> convert_prepare_type_as(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(call, 1, "other"));
  TIR_RETURN_IF_ERROR(require_valid_dtype(call, *other, "other"));
  return convert_self(call, other->dtype, true, out_info);
}

Result<ConvertParams> convert_prepare_lift_fresh_copy(const KernelCall& call,
                                                      PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  return convert_self(call, DType::kUndefined, false, out_info);
}

}  // namespace tir::kernels
