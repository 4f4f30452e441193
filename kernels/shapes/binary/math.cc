#include "kernels/shapes/binary/math.h"

namespace tir::kernels {
namespace {

Status set_output(const KernelCall& call, MathBinaryParams& p) {
  std::array<std::span<const int64_t>, 3> shapes;
  for (int k = 0; k < p.n; ++k) shapes[k] = p.operands[k].shape;
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, std::span(shapes.data(), p.n)));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return ok_status();
}

constexpr bool is_bitwise(BinaryKind op) {
  return op == BinaryKind::kBitAnd || op == BinaryKind::kBitOr || op == BinaryKind::kBitXor;
}

constexpr bool is_logical(BinaryKind op) {
  return op == BinaryKind::kLogicalAnd || op == BinaryKind::kLogicalOr ||
         op == BinaryKind::kLogicalXor;
}

}  // namespace

template <BinaryKind Op>
Result<MathBinaryParams> math_prepare_binary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() < 2 || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, other) and one output");
  MathBinaryParams p;
  p.op = Op;
  p.n = 2;
  TIR_ASSIGN_OR_RETURN(p.operands[0], operand_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.operands[1], operand_arg(call, 1, "other"));
  if (p.operands[0].kind == Operand::Kind::kScalar && p.operands[1].kind == Operand::Kind::kScalar)
    return op_error(call, StatusCode::kInvalidArgument, "needs at least one tensor operand");
  const DType rt = result_type(std::span(p.operands.data(), 2));
  p.compute = p.out = rt;
  if (Op == BinaryKind::kDiv || Op == BinaryKind::kAtan2 || Op == BinaryKind::kHypot ||
      Op == BinaryKind::kLogaddexp || Op == BinaryKind::kLogaddexp2 ||
      Op == BinaryKind::kCopysign || Op == BinaryKind::kXlogy) {
    if (!dtype_is_float(rt)) p.compute = p.out = DType::kFloat32;
  } else if (is_logical(Op)) {
    p.out = DType::kBool;
  } else if (is_bitwise(Op) && dtype_is_float(rt)) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "bitwise ops need bool or integer operands, got ", dtype_name(rt));
  }
  if (Op == BinaryKind::kAdd || Op == BinaryKind::kSub) {
    if (call.args.size() > 2 && !call.args[2].is_none()) {
      const Arg& alpha = call.args[2];
      if (alpha.kind == ArgKind::kFloat && !dtype_is_float(rt))
        return op_error(call, StatusCode::kInvalidArgument,
                        "a float alpha needs floating-point operands");
      p.alpha = alpha.scalar();
      p.int_alpha = alpha.kind == ArgKind::kFloat ? 1 : alpha.i;
    }
  }
  if ((Op == BinaryKind::kSub) && rt == DType::kBool)
    return op_error(call, StatusCode::kInvalidArgument, "subtraction of bool tensors");
  TIR_RETURN_IF_ERROR(set_output(call, p));
  return p;
}

Result<MathBinaryParams> math_prepare_div_mode(const KernelCall& call, PrepareInfo* out_info) {
  if (call.args.size() != 3)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, other, rounding_mode)");
  const Arg& mode = call.args[2];
  BinaryKind op = BinaryKind::kDiv;
  if (mode.kind == ArgKind::kString && mode.s == "trunc") {
    op = BinaryKind::kDivTrunc;
  } else if (mode.kind == ArgKind::kString && mode.s == "floor") {
    op = BinaryKind::kDivFloor;
  } else if (!mode.is_none()) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "rounding_mode must be None, 'trunc' or 'floor', got '", mode.s, "'");
  }
  MathBinaryParams p;
  switch (op) {
    case BinaryKind::kDivTrunc: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<BinaryKind::kDivTrunc>(call, out_info));
      break;
    }
    case BinaryKind::kDivFloor: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<BinaryKind::kDivFloor>(call, out_info));
      break;
    }
    default: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<BinaryKind::kDiv>(call, out_info));
      break;
    }
  }
  return p;
}

Result<MathBinaryParams> math_prepare_clamp(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() != 3 || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, min, max)");
  MathBinaryParams p;
  p.op = BinaryKind::kClamp;
  p.n = 1;
  TIR_ASSIGN_OR_RETURN(p.operands[0], tensor_operand_arg(call, 0, "self"));
  std::array<Operand, 3> typed{p.operands[0]};
  int nt = 1;
  for (int k = 1; k < 3; ++k) {
    p.present[k] = !call.args[k].is_none();
    if (!p.present[k]) continue;
    TIR_ASSIGN_OR_RETURN(p.operands[k], operand_arg(call, k, k == 1 ? "min" : "max"));
    typed[nt++] = p.operands[k];
  }
  if (!p.present[1] && !p.present[2])
    return op_error(call, StatusCode::kInvalidArgument, "needs at least one of min and max");
  p.compute = p.out = result_type(std::span(typed.data(), nt));
  // Broadcast over every present tensor bound: an absent one takes a scalar's empty shape.
  p.n = 3;
  TIR_RETURN_IF_ERROR(set_output(call, p));
  return p;
}

template <BinaryKind Op>
Result<MathBinaryParams> math_prepare_ternary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  const bool lerp = Op == BinaryKind::kLerp;
  if (call.args.size() != (lerp ? 3u : 4u) || call.outputs.size() != 1)
    return op_error(
        call, StatusCode::kInvalidArgument,
        lerp ? "expects (self, end, weight)" : "expects (self, tensor1, tensor2, value)");
  MathBinaryParams p;
  p.op = Op;
  p.n = 3;
  const char* names[3] = {"self", lerp ? "end" : "tensor1", lerp ? "weight" : "tensor2"};
  for (int k = 0; k < 3; ++k) {
    if (lerp && k == 2) {
      TIR_ASSIGN_OR_RETURN(p.operands[k], operand_arg(call, k, names[k]));
    } else {
      TIR_ASSIGN_OR_RETURN(p.operands[k], tensor_operand_arg(call, k, names[k]));
    }
  }
  p.compute = p.out = result_type(std::span(p.operands.data(), 3));
  if ((lerp || Op == BinaryKind::kAddcdiv) && !dtype_is_float(p.out))
    return op_error(call, StatusCode::kInvalidArgument, "needs floating-point operands, got ",
                    dtype_name(p.out));
  if (!lerp && !call.args[3].is_none()) {
    const Arg& value = call.args[3];
    if (value.kind == ArgKind::kFloat && !dtype_is_float(p.out))
      return op_error(call, StatusCode::kInvalidArgument,
                      "a float value needs floating-point operands");
    p.alpha = value.scalar();
    p.int_alpha = value.kind == ArgKind::kFloat ? 1 : value.i;
  }
  TIR_RETURN_IF_ERROR(set_output(call, p));
  return p;
}

template Result<MathBinaryParams> math_prepare_ternary<BinaryKind::kAddcmul>(const KernelCall&,
                                                                             PrepareInfo*);
template Result<MathBinaryParams> math_prepare_ternary<BinaryKind::kAddcdiv>(const KernelCall&,
                                                                             PrepareInfo*);
template Result<MathBinaryParams> math_prepare_ternary<BinaryKind::kLerp>(const KernelCall&,
                                                                          PrepareInfo*);

#define TIR_MATH_BINARY(op)                                                                \
  template Result<MathBinaryParams> math_prepare_binary<BinaryKind::op>(const KernelCall&, \
                                                                        PrepareInfo*);
TIR_MATH_BINARY(kAdd)
TIR_MATH_BINARY(kSub)
TIR_MATH_BINARY(kMul)
TIR_MATH_BINARY(kFmod)
TIR_MATH_BINARY(kRemainder)
TIR_MATH_BINARY(kMaximum)
TIR_MATH_BINARY(kMinimum)
TIR_MATH_BINARY(kDivTrunc)
TIR_MATH_BINARY(kDivFloor)
TIR_MATH_BINARY(kDiv)
TIR_MATH_BINARY(kAtan2)
TIR_MATH_BINARY(kPow)
TIR_MATH_BINARY(kBitAnd)
TIR_MATH_BINARY(kBitOr)
TIR_MATH_BINARY(kBitXor)
TIR_MATH_BINARY(kLogicalAnd)
TIR_MATH_BINARY(kLogicalOr)
TIR_MATH_BINARY(kLogicalXor)
TIR_MATH_BINARY(kFmax)
TIR_MATH_BINARY(kFmin)
TIR_MATH_BINARY(kHypot)
TIR_MATH_BINARY(kLogaddexp)
TIR_MATH_BINARY(kLogaddexp2)
TIR_MATH_BINARY(kCopysign)
TIR_MATH_BINARY(kXlogy)
TIR_MATH_BINARY(kHeaviside)
#undef TIR_MATH_BINARY

}  // namespace tir::kernels
