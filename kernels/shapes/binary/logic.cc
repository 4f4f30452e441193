#include "kernels/shapes/binary/logic.h"

namespace tir::kernels {
namespace {

Status set_output(const KernelCall& call, LogicParams& p) {
  std::array<std::span<const int64_t>, 3> shapes;
  for (int k = 0; k < p.n; ++k) shapes[k] = p.operands[k].shape;
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, std::span(shapes.data(), p.n)));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return ok_status();
}

Result<Operand> self_tensor(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(Operand o, operand_arg(call, 0, "self"));
  if (o.kind == Operand::Kind::kScalar) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'self' must be a Tensor");
  }
  return o;
}

}  // namespace

template <LogicOp Op>
Result<LogicParams> logic_prepare_compare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  LogicParams p;
  p.op = Op;
  p.n = 2;
  TIR_ASSIGN_OR_RETURN(p.operands[0], self_tensor(call));
  TIR_ASSIGN_OR_RETURN(p.operands[1], operand_arg(call, 1, "other"));
  p.compute = result_type(std::span(p.operands.data(), 2));
  p.out = DType::kBool;
  TIR_RETURN_IF_ERROR(set_output(call, p));
  (void)out_info;
  return p;
}

template <LogicOp Op>
Result<LogicParams> logic_prepare_not(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  LogicParams p;
  p.op = Op;
  p.n = 1;
  TIR_ASSIGN_OR_RETURN(p.operands[0], self_tensor(call));
  p.compute = p.operands[0].dtype;
  p.out = Op == LogicOp::kLogicalNot ? DType::kBool : p.compute;
  if (Op == LogicOp::kBitNot && dtype_is_float(p.compute)) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "bitwise_not needs a bool or integer tensor, got ", dtype_name(p.compute));
  }
  TIR_RETURN_IF_ERROR(set_output(call, p));
  (void)out_info;
  return p;
}

Result<LogicParams> logic_prepare_where(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  LogicParams p;
  p.op = LogicOp::kWhere;
  p.n = 3;
  TIR_ASSIGN_OR_RETURN(p.operands[0], operand_arg(call, 0, "condition"));
  // Complex values (the core IR pads complex rotary tables with where): two tensors of one
  // complex dtype, selected bit for bit.
  const auto complex_tensor = [&](size_t idx) -> const Tensor* {
    if (call.args[idx].kind != ArgKind::kTensor) return nullptr;
    const Tensor& t = call.inputs[tensor_input_index(call, idx)];
    return dtype_is_complex(t.dtype) ? &t : nullptr;
  };
  if (const Tensor* a = complex_tensor(1), *b = complex_tensor(2); a || b) {
    if (!a || !b || a->dtype != b->dtype)
      return op_error(call, StatusCode::kUnsupported,
                      "where on complex values needs 'self' and 'other' tensors of one complex "
                      "dtype");
    for (size_t k = 1; k <= 2; ++k) {
      const Tensor& t = k == 1 ? *a : *b;
      TIR_RETURN_IF_ERROR(require_contiguous(call, t, k == 1 ? "self" : "other"));
      p.operands[k].kind = t.rank == 0 ? Operand::Kind::kZeroDim : Operand::Kind::kTensor;
      p.operands[k].dtype = t.dtype;
      p.operands[k].input = static_cast<int>(tensor_input_index(call, k));
      p.operands[k].shape = t.shape();
    }
  } else {
    TIR_ASSIGN_OR_RETURN(p.operands[1], operand_arg(call, 1, "self"));
    TIR_ASSIGN_OR_RETURN(p.operands[2], operand_arg(call, 2, "other"));
  }
  if (p.operands[0].input < 0 || p.operands[0].dtype != DType::kBool) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "argument 'condition' must be a bool tensor, got ",
                    dtype_name(p.operands[0].dtype));
  }
  p.compute = p.out = dtype_is_complex(p.operands[1].dtype)
                          ? p.operands[1].dtype
                          : result_type(std::span(p.operands.data() + 1, 2));
  TIR_RETURN_IF_ERROR(set_output(call, p));
  (void)out_info;
  return p;
}

template <LogicOp Op>
Result<LogicParams> logic_prepare_triangle(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  LogicParams p;
  p.op = Op;
  p.n = 1;
  TIR_ASSIGN_OR_RETURN(p.operands[0], self_tensor(call));
  if (p.operands[0].shape.size() < 2) {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'self' must have rank >= 2, got ",
                    shape_str(p.operands[0].shape));
  }
  TIR_ASSIGN_OR_RETURN(p.diagonal, int_arg(call, 1, "diagonal"));
  p.compute = p.out = p.operands[0].dtype;
  TIR_RETURN_IF_ERROR(set_output(call, p));
  (void)out_info;
  return p;
}

template Result<LogicParams> logic_prepare_compare<LogicOp::kEq>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_compare<LogicOp::kNe>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_compare<LogicOp::kLt>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_compare<LogicOp::kLe>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_compare<LogicOp::kGt>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_compare<LogicOp::kGe>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_not<LogicOp::kBitNot>(const KernelCall&, PrepareInfo*);
template Result<LogicParams> logic_prepare_not<LogicOp::kLogicalNot>(const KernelCall&,
                                                                     PrepareInfo*);
template Result<LogicParams> logic_prepare_triangle<LogicOp::kTriu>(const KernelCall&,
                                                                    PrepareInfo*);
template Result<LogicParams> logic_prepare_triangle<LogicOp::kTril>(const KernelCall&,
                                                                    PrepareInfo*);

}  // namespace tir::kernels
