#include "kernels/shapes/unary/math.h"

#include <limits>

namespace tir::kernels {
namespace {

constexpr bool math_keeps_int(UnaryKind op) {
  return op == UnaryKind::kCeil || op == UnaryKind::kFloor || op == UnaryKind::kRound ||
         op == UnaryKind::kTrunc || op == UnaryKind::kSign || op == UnaryKind::kAbs ||
         op == UnaryKind::kNeg || op == UnaryKind::kRoundDecimals;
}

Result<double> scalar_at(const KernelCall& call, size_t idx, std::string_view name,
                         double fallback) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return fallback;
  return scalar_arg(call, idx, name);
}

}  // namespace

template <UnaryKind Op>
Result<MathUnaryParams> math_prepare_unary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  if (call.args.empty() || call.outputs.size() != 1)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, ...) and one output");
  MathUnaryParams p;
  p.op = Op;
  TIR_ASSIGN_OR_RETURN(p.x, tensor_operand_arg(call, 0, "self"));
  const DType in = p.x.dtype;
  if (Op == UnaryKind::kIsnan || Op == UnaryKind::kIsinf || Op == UnaryKind::kIsfinite ||
      Op == UnaryKind::kSignbit) {
    p.compute = in;
    p.out = DType::kBool;
  } else if (math_keeps_int(Op)) {
    if (in == DType::kBool && Op != UnaryKind::kAbs)
      return op_error(call, StatusCode::kInvalidArgument, "does not take a bool tensor");
    p.compute = p.out = in;
  } else {
    p.compute = p.out = dtype_is_float(in) ? in : DType::kFloat32;
  }
  if constexpr (Op == UnaryKind::kLeakyRelu) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "negative_slope", 0.01));
  } else if constexpr (Op == UnaryKind::kElu) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "alpha", 1.0));
    TIR_ASSIGN_OR_RETURN(p.b, scalar_at(call, 2, "scale", 1.0));
    TIR_ASSIGN_OR_RETURN(p.c, scalar_at(call, 3, "input_scale", 1.0));
  } else if constexpr (Op == UnaryKind::kRoundDecimals) {
    TIR_ASSIGN_OR_RETURN(p.decimals, int_arg(call, 1, "decimals"));
  } else if constexpr (Op == UnaryKind::kSoftplus) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "beta", 1.0));
    TIR_ASSIGN_OR_RETURN(p.b, scalar_at(call, 2, "threshold", 20.0));
  } else if constexpr (Op == UnaryKind::kThreshold) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "threshold", 0.0));
    TIR_ASSIGN_OR_RETURN(p.b, scalar_at(call, 2, "value", 0.0));
  } else if constexpr (Op == UnaryKind::kHardshrink || Op == UnaryKind::kSoftshrink) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "lambd", 0.5));
  } else if constexpr (Op == UnaryKind::kLogit) {
    p.c = call.args.size() > 1 && !call.args[1].is_none();  // eps given
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "eps", 0.0));
  } else if constexpr (Op == UnaryKind::kNanToNum) {
    // torch's defaults: NaN to 0, infinities to the output dtype's largest finite values.
    const double big = p.out == DType::kFloat64    ? std::numeric_limits<double>::max()
                       : p.out == DType::kFloat16  ? 65504.0
                       : p.out == DType::kBFloat16 ? 3.3895313892515355e38
                                                   : double(std::numeric_limits<float>::max());
    TIR_ASSIGN_OR_RETURN(p.a, scalar_at(call, 1, "nan", 0.0));
    TIR_ASSIGN_OR_RETURN(p.b, scalar_at(call, 2, "posinf", big));
    TIR_ASSIGN_OR_RETURN(p.c, scalar_at(call, 3, "neginf", -big));
  }
  const bool float_only = Op == UnaryKind::kLeakyRelu || Op == UnaryKind::kElu ||
                          Op == UnaryKind::kSoftplus || Op == UnaryKind::kMish ||
                          Op == UnaryKind::kLogSigmoid || Op == UnaryKind::kThreshold ||
                          Op == UnaryKind::kHardshrink || Op == UnaryKind::kSoftshrink ||
                          Op == UnaryKind::kFrac || Op == UnaryKind::kNanToNum;
  if (float_only && !dtype_is_float(in))
    return op_error(call, StatusCode::kInvalidArgument, "needs a floating-point tensor, got ",
                    dtype_name(in));
  const std::array<std::span<const int64_t>, 1> shapes = {p.x.shape};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  return p;
}

#define TIR_MATH_UNARY(op)                                                              \
  template Result<MathUnaryParams> math_prepare_unary<UnaryKind::op>(const KernelCall&, \
                                                                     PrepareInfo*);
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
TIR_MATH_UNARY(kSoftplus)
TIR_MATH_UNARY(kMish)
TIR_MATH_UNARY(kLogSigmoid)
TIR_MATH_UNARY(kThreshold)
TIR_MATH_UNARY(kHardshrink)
TIR_MATH_UNARY(kSoftshrink)
TIR_MATH_UNARY(kErfc)
TIR_MATH_UNARY(kExp2)
TIR_MATH_UNARY(kLogit)
TIR_MATH_UNARY(kSinc)
TIR_MATH_UNARY(kFrac)
TIR_MATH_UNARY(kNanToNum)
TIR_MATH_UNARY(kIsfinite)
TIR_MATH_UNARY(kSignbit)
#undef TIR_MATH_UNARY

}  // namespace tir::kernels
