#include "kernels/shapes/indexing/masked_fill.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<MaskedFillParams> masked_fill_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  MaskedFillParams p;
  TIR_ASSIGN_OR_RETURN(p.operands[0], operand_arg(call, 0, "self"));
  if (p.operands[0].kind == Operand::Kind::kScalar) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'self' must be a Tensor");
  }
  TIR_ASSIGN_OR_RETURN(p.operands[1], operand_arg(call, 1, "mask"));
  TIR_ASSIGN_OR_RETURN(p.operands[2], operand_arg(call, 2, "value"));
  if (p.operands[1].input < 0 || p.operands[1].dtype != DType::kBool) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'mask' must be a bool tensor");
  }
  if (p.operands[2].kind == Operand::Kind::kTensor) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "argument 'value' must be a 0-d tensor or a scalar, got shape ",
                    shape_str(p.operands[2].shape));
  }
  p.dtype = p.operands[0].dtype;
  const std::span<const int64_t> shapes[2] = {p.operands[0].shape, p.operands[1].shape};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return p;
}

}  // namespace tir::kernels
