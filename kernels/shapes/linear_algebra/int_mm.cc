#include "kernels/shapes/linear_algebra/int_mm.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<IntMmParams> int_mm_prepare(const KernelCall& call) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  const bool weight_form = call.op == "tir::int_mm_weight";
  TIR_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(call, 1, weight_form ? "weight" : "mat2"));
  if (a->dtype != DType::kInt8 && a->dtype != DType::kUInt8)
    return op_error(call, StatusCode::kUnsupported, "self must be int8 or uint8, got ",
                    dtype_name(a->dtype));
  TIR_RETURN_IF_ERROR(require_dtype(call, *b, DType::kInt8, weight_form ? "weight" : "mat2"));
  if (a->rank != 2 || b->rank != 2)
    return op_error(call, StatusCode::kInvalidArgument, "expected 2-D operands, got ranks ",
                    a->rank, " and ", b->rank);
  IntMmParams p;
  p.m = a->sizes[0];
  p.k = a->sizes[1];
  p.n = weight_form ? b->sizes[0] : b->sizes[1];
  const int64_t bk = weight_form ? b->sizes[1] : b->sizes[0];
  if (bk != p.k)
    return op_error(call, StatusCode::kInvalidArgument, "self [", p.m, ", ", p.k, "] and ",
                    weight_form ? "weight^T" : "mat2", " with ", bk, " rows cannot be multiplied");
  p.unsigned_a = a->dtype == DType::kUInt8;
  p.a_rs = a->strides[0];
  p.a_cs = a->strides[1];
  p.b_rs = weight_form ? b->strides[1] : b->strides[0];
  p.b_cs = weight_form ? b->strides[0] : b->strides[1];
  call.outputs[0].dtype = DType::kInt32;
  call.outputs[0].set_shape({p.m, p.n});
  return p;
}

}  // namespace tir::kernels
