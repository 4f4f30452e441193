#include "kernels/shapes/unary/math.h"

namespace tir::kernels {
namespace {

Status set_output(const KernelCall& call, MathParams& p) {
  std::array<std::span<const int64_t>, 3> shapes;
  for (int k = 0; k < p.n; ++k) shapes[k] = p.operands[k].shape;
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, std::span(shapes.data(), p.n)));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return ok_status();
}

Result<Operand> tensor_operand(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(Operand o, operand_arg(call, idx, name));
  if (o.kind == Operand::Kind::kScalar)
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be a Tensor");
  return o;
}

constexpr bool keeps_int(MathOp op) {
  return op == MathOp::kCeil || op == MathOp::kFloor || op == MathOp::kRound ||
         op == MathOp::kTrunc || op == MathOp::kSign || op == MathOp::kAbs || op == MathOp::kNeg ||
         op == MathOp::kRoundDecimals;
}

constexpr bool is_bitwise(MathOp op) {
  return op == MathOp::kBitAnd || op == MathOp::kBitOr || op == MathOp::kBitXor;
}

constexpr bool is_logical(MathOp op) {
  return op == MathOp::kLogicalAnd || op == MathOp::kLogicalOr || op == MathOp::kLogicalXor;
}

Result<double> scalar_at(const KernelCall& call, size_t idx, std::string_view name,
                         double fallback) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return fallback;
  return scalar_arg(call, idx, name);
}

}  // namespace

template <MathOp Op>
Result<MathParams> math_prepare_unary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.empty() || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, ...) and one output");
  MathParams p;
  p.op = Op;
  p.n = 1;
  TIR_ASSIGN_OR_RETURN(p.operands[0], tensor_operand(call, 0, "self"));
  const DType in = p.operands[0].dtype;
  if (Op == MathOp::kIsnan || Op == MathOp::kIsinf) {
    p.compute = in;
    p.out = DType::kBool;
  } else if (keeps_int(Op)) {
    if (in == DType::kBool && Op != MathOp::kAbs)
      return op_error(call, StatusCode::kInvalidArgument, "does not take a bool tensor");
    p.compute = p.out = in;
  } else {
    p.compute = p.out = dtype_is_float(in) ? in : DType::kFloat32;
  }
  if constexpr (Op == MathOp::kLeakyRelu) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "negative_slope", 0.01));
  } else if constexpr (Op == MathOp::kElu) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "alpha", 1.0));
    TIR_ASSIGN_OR_RETURN(p.b, scalar_at(call, 2, "scale", 1.0));
    TIR_ASSIGN_OR_RETURN(p.c, scalar_at(call, 3, "input_scale", 1.0));
  } else if constexpr (Op == MathOp::kRoundDecimals) {
    TIR_ASSIGN_OR_RETURN(const int64_t d, int_arg(call, 1, "decimals"));
    p.ia = d;
  }
  if ((Op == MathOp::kLeakyRelu || Op == MathOp::kElu) && !dtype_is_float(in))
    return op_error(call, StatusCode::kInvalidArgument, "needs a floating-point tensor, got ",
                    dtype_name(in));
  TIR_RETURN_IF_ERROR(set_output(call, p));
  return p;
}

template <MathOp Op>
Result<MathParams> math_prepare_binary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() < 2 || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, other) and one output");
  MathParams p;
  p.op = Op;
  p.n = 2;
  TIR_ASSIGN_OR_RETURN(p.operands[0], operand_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.operands[1], operand_arg(call, 1, "other"));
  if (p.operands[0].kind == Operand::Kind::kScalar && p.operands[1].kind == Operand::Kind::kScalar)
    return op_error(call, StatusCode::kInvalidArgument, "needs at least one tensor operand");
  const DType rt = result_type(std::span(p.operands.data(), 2));
  p.compute = p.out = rt;
  if (Op == MathOp::kDivTrue || Op == MathOp::kAtan2) {
    if (!dtype_is_float(rt)) p.compute = p.out = DType::kFloat32;
  } else if (is_logical(Op)) {
    p.out = DType::kBool;
  } else if (is_bitwise(Op) && dtype_is_float(rt)) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "bitwise ops need bool or integer operands, got ", dtype_name(rt));
  }
  if (Op == MathOp::kAdd || Op == MathOp::kSub) {
    if (call.args.size() > 2 && !call.args[2].is_none()) {
      const Arg& alpha = call.args[2];
      if (alpha.kind == ArgKind::kFloat && !dtype_is_float(rt))
        return op_error(call, StatusCode::kInvalidArgument,
                        "a float alpha needs floating-point operands");
      p.a = alpha.scalar();
      p.ia = alpha.kind == ArgKind::kFloat ? 1 : alpha.i;
    }
  }
  if ((Op == MathOp::kSub) && rt == DType::kBool)
    return op_error(call, StatusCode::kInvalidArgument, "subtraction of bool tensors");
  TIR_RETURN_IF_ERROR(set_output(call, p));
  return p;
}

Result<MathParams> math_prepare_div_mode(const KernelCall& call, PrepareInfo* out_info) {
  if (call.args.size() != 3)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, other, rounding_mode)");
  const Arg& mode = call.args[2];
  MathOp op = MathOp::kDivTrue;
  if (mode.kind == ArgKind::kString && mode.s == "trunc") {
    op = MathOp::kDivTrunc;
  } else if (mode.kind == ArgKind::kString && mode.s == "floor") {
    op = MathOp::kDivFloor;
  } else if (!mode.is_none()) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "rounding_mode must be None, 'trunc' or 'floor', got '", mode.s, "'");
  }
  MathParams p;
  switch (op) {
    case MathOp::kDivTrunc: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<MathOp::kDivTrunc>(call, out_info));
      break;
    }
    case MathOp::kDivFloor: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<MathOp::kDivFloor>(call, out_info));
      break;
    }
    default: {
      TIR_ASSIGN_OR_RETURN(p, math_prepare_binary<MathOp::kDivTrue>(call, out_info));
      break;
    }
  }
  return p;
}

Result<MathParams> math_prepare_clamp(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.size() != 3 || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, min, max)");
  MathParams p;
  p.op = MathOp::kClamp;
  p.n = 1;
  TIR_ASSIGN_OR_RETURN(p.operands[0], tensor_operand(call, 0, "self"));
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

#define TIR_MATH_UNARY(op) \
  template Result<MathParams> math_prepare_unary<MathOp::op>(const KernelCall&, PrepareInfo*);
#define TIR_MATH_BINARY(op) \
  template Result<MathParams> math_prepare_binary<MathOp::op>(const KernelCall&, PrepareInfo*);
TIR_MATH_UNARY(kAcos)
TIR_MATH_UNARY(kAcosh)
TIR_MATH_UNARY(kAsin)
TIR_MATH_UNARY(kAsinh)
TIR_MATH_UNARY(kAtan)
TIR_MATH_UNARY(kAtanh)
TIR_MATH_UNARY(kCosh)
TIR_MATH_UNARY(kSinh)
TIR_MATH_UNARY(kTan)
TIR_MATH_UNARY(kExpm1)
TIR_MATH_UNARY(kLog1p)
TIR_MATH_UNARY(kLog2)
TIR_MATH_UNARY(kLog10)
TIR_MATH_UNARY(kReciprocal)
TIR_MATH_UNARY(kCos)
TIR_MATH_UNARY(kSin)
TIR_MATH_UNARY(kExp)
TIR_MATH_UNARY(kLog)
TIR_MATH_UNARY(kSqrt)
TIR_MATH_UNARY(kRsqrt)
TIR_MATH_UNARY(kSigmoid)
TIR_MATH_UNARY(kTanh)
TIR_MATH_UNARY(kErf)
TIR_MATH_UNARY(kCeil)
TIR_MATH_UNARY(kFloor)
TIR_MATH_UNARY(kRound)
TIR_MATH_UNARY(kTrunc)
TIR_MATH_UNARY(kSign)
TIR_MATH_UNARY(kAbs)
TIR_MATH_UNARY(kNeg)
TIR_MATH_UNARY(kIsnan)
TIR_MATH_UNARY(kIsinf)
TIR_MATH_UNARY(kLeakyRelu)
TIR_MATH_UNARY(kElu)
TIR_MATH_UNARY(kRoundDecimals)
TIR_MATH_BINARY(kAdd)
TIR_MATH_BINARY(kSub)
TIR_MATH_BINARY(kMul)
TIR_MATH_BINARY(kFmod)
TIR_MATH_BINARY(kRemainder)
TIR_MATH_BINARY(kMaximum)
TIR_MATH_BINARY(kMinimum)
TIR_MATH_BINARY(kDivTrunc)
TIR_MATH_BINARY(kDivFloor)
TIR_MATH_BINARY(kDivTrue)
TIR_MATH_BINARY(kAtan2)
TIR_MATH_BINARY(kPow)
TIR_MATH_BINARY(kBitAnd)
TIR_MATH_BINARY(kBitOr)
TIR_MATH_BINARY(kBitXor)
TIR_MATH_BINARY(kLogicalAnd)
TIR_MATH_BINARY(kLogicalOr)
TIR_MATH_BINARY(kLogicalXor)
#undef TIR_MATH_UNARY
#undef TIR_MATH_BINARY

}  // namespace tir::kernels
