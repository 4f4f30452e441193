#include "kernels/shapes/unary/activation.h"

#include <array>
#include <string_view>

namespace tir::kernels {
namespace {

constexpr bool activation_keeps_int(UnaryKind op) {
  return op == UnaryKind::kNeg || op == UnaryKind::kAbs || op == UnaryKind::kHardtanh ||
         op == UnaryKind::kRelu6 || op == UnaryKind::kRelu || op == UnaryKind::kPowScalar ||
         op == UnaryKind::kRsub || op == UnaryKind::kSubScalar || op == UnaryKind::kDivScalar;
}

// Number of schema arguments after self.
constexpr size_t extra_args(UnaryKind op) {
  switch (op) {
    case UnaryKind::kGeluErf:
    case UnaryKind::kGeluTanh:
      return 1;
    case UnaryKind::kHardtanh:
    case UnaryKind::kRsub:
    case UnaryKind::kSubScalar:
      return 2;
    case UnaryKind::kPowScalar:
    case UnaryKind::kDivScalar:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

Result<UnaryParams> act_prepare_unary_float(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(x->shape());
  (void)out_info;
  return UnaryParams{x->numel(), static_cast<int>(tensor_input_index(call, 0))};
}

template <UnaryKind Op>
Result<ActParams> act_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 1 + extra_args(Op), 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  ActParams p;
  p.op = Op;
  p.dtype = x->dtype;
  p.numel = x->numel();
  p.input = static_cast<int>(tensor_input_index(call, 0));
  const bool int_ok = activation_keeps_int(Op) && x->dtype == DType::kInt64;
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64 && !int_ok) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype),
                    activation_keeps_int(Op) ? ", only float32, float64 and int64 are supported"
                                             : ", only float32 and float64 are supported");
  }
  if constexpr (Op == UnaryKind::kGeluErf || Op == UnaryKind::kGeluTanh) {
    const Arg& a = call.args[1];
    if (a.kind != ArgKind::kString || (a.s != "none" && a.s != "tanh")) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "argument 'approximate' must be \"none\" or \"tanh\"");
    }
    if (a.s == "tanh") p.op = UnaryKind::kGeluTanh;
  }
  auto scalar = [&](size_t idx, std::string_view name) -> Result<ScalarValue> {
    TIR_ASSIGN_OR_RETURN(double v, scalar_arg(call, idx, name));
    (void)v;
    return scalar_value(call.args[idx]);
  };
  if constexpr (Op == UnaryKind::kHardtanh) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar(1, "min_val"));
    TIR_ASSIGN_OR_RETURN(p.b, scalar(2, "max_val"));
  } else if constexpr (Op == UnaryKind::kRsub || Op == UnaryKind::kSubScalar) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar(1, "other"));
    TIR_ASSIGN_OR_RETURN(p.b, scalar(2, "alpha"));
  } else if constexpr (Op == UnaryKind::kPowScalar) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar(1, "exponent"));
  } else if constexpr (Op == UnaryKind::kDivScalar) {
    TIR_ASSIGN_OR_RETURN(p.a, scalar(1, "other"));
  }
  p.out_dtype = x->dtype;
  if (x->dtype == DType::kInt64) {
    // Integer tensor with a float scalar (or true division) promotes to the default float.
    if (p.a.is_float || p.b.is_float || Op == UnaryKind::kDivScalar) {
      if (Op == UnaryKind::kHardtanh) {
        p.float_bounds = true;
      } else {
        p.out_dtype = DType::kFloat32;
      }
    }
    if (Op == UnaryKind::kPowScalar && !p.a.is_float && p.a.i < 0) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "integers to negative integer powers are not allowed");
    }
  }
  call.outputs[0].dtype = p.out_dtype;
  call.outputs[0].set_shape(x->shape());
  (void)out_info;
  return p;
}

#define TIR_ACT_INSTANTIATE(OP) \
  template Result<ActParams> act_prepare<UnaryKind::OP>(const KernelCall&, PrepareInfo*);
TIR_ACT_INSTANTIATE(kGeluErf)
TIR_ACT_INSTANTIATE(kTanh)
TIR_ACT_INSTANTIATE(kSigmoid)
TIR_ACT_INSTANTIATE(kSilu)
TIR_ACT_INSTANTIATE(kHardswish)
TIR_ACT_INSTANTIATE(kHardsigmoid)
TIR_ACT_INSTANTIATE(kHardtanh)
TIR_ACT_INSTANTIATE(kRelu6)
TIR_ACT_INSTANTIATE(kNeg)
TIR_ACT_INSTANTIATE(kExp)
TIR_ACT_INSTANTIATE(kLog)
TIR_ACT_INSTANTIATE(kSqrt)
TIR_ACT_INSTANTIATE(kRsqrt)
TIR_ACT_INSTANTIATE(kAbs)
TIR_ACT_INSTANTIATE(kErf)
TIR_ACT_INSTANTIATE(kPowScalar)
TIR_ACT_INSTANTIATE(kRsub)
TIR_ACT_INSTANTIATE(kSubScalar)
TIR_ACT_INSTANTIATE(kDivScalar)
TIR_ACT_INSTANTIATE(kRelu)
#undef TIR_ACT_INSTANTIATE

Result<PowParams> act_prepare_pow_tensor(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  PowParams p;
  TIR_ASSIGN_OR_RETURN(p.base, operand_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(p.exponent, operand_arg(call, 1, "exponent"));
  const std::array<Operand, 2> ops = {p.base, p.exponent};
  p.dtype = result_type(ops);
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kFloat64 && p.dtype != DType::kInt64) {
    return op_error(call, StatusCode::kUnsupported, "pow computes in ", dtype_name(p.dtype),
                    "; only float32, float64 and int64 are supported");
  }
  const std::array<std::span<const int64_t>, 2> shapes = {p.base.shape, p.exponent.shape};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.plan.sizes.data(), p.plan.rank));
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
