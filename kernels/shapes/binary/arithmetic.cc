#include "kernels/shapes/binary/arithmetic.h"

#include <array>
#include <cmath>
#include <string_view>

namespace tir::kernels {

double read_scalar_tensor(const Tensor& t, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return *t.data_as<const float>();
    case DType::kFloat64:
      return *t.data_as<const double>();
    case DType::kInt32:
      return *t.data_as<const int32_t>();
    case DType::kInt64:
      return static_cast<double>(*t.data_as<const int64_t>());
    default:
      return 0.0;
  }
}

namespace {

bool is_number(const Arg& a) {
  return a.kind == ArgKind::kInt || a.kind == ArgKind::kFloat || a.kind == ArgKind::kBool;
}

// A tensor operand is contiguous, or (`channels_last`) a channels-last float32 [N, C, H, W].
Status check_operand(const KernelCall& call, const Tensor& t, std::string_view name,
                     bool channels_last) {
  if (channels_last && t.dtype == DType::kFloat32 && t.is_channels_last()) return ok_status();
  return require_contiguous(call, t, name);
}

// Element stride of `t` (null: a number) along output dim `d` of a rank-`rank` output.
int64_t broadcast_stride(const Tensor* t, int d, int rank) {
  const int j = d - (rank - (t ? t->rank : 0));
  return t && j >= 0 && t->sizes[j] != 1 ? t->strides[j] : 0;
}

// The loop over y's elements in memory order (N, H, W, C for a channels-last y), with each
// operand's real strides: y is dense in the plan's dim order.
BroadcastPlan strided_plan(const Tensor& y, const Tensor* a, const Tensor* b) {
  std::array<int, kMaxRank> order{};
  for (int d = 0; d < y.rank; ++d) order[d] = d;
  if (y.rank == 4 && !y.is_contiguous()) order = {0, 2, 3, 1};
  BroadcastPlan p;
  p.rank = y.rank;
  for (int i = 0; i < y.rank; ++i) {
    p.sizes[i] = y.sizes[order[i]];
    p.a_strides[i] = broadcast_stride(a, order[i], y.rank);
    p.b_strides[i] = broadcast_stride(b, order[i], y.rank);
  }
  return p;
}

// With `channels_last`: sets the output's channels-last strides when the call asks, and
// switches `p` to the strided plan when an operand or the output is not contiguous.
Status finish_layout(const KernelCall& call, const Tensor* a, const Tensor* b, bool channels_last,
                     BinaryParams& p) {
  if (!channels_last) return ok_status();
  Tensor& y = call.outputs[0];
  if (call.channels_last && y.rank == 4) y.set_channels_last_strides();
  const auto strided = [](const Tensor* t) { return t && !t->is_contiguous(); };
  if (!strided(a) && !strided(b) && y.is_contiguous()) return ok_status();
  if (p.dtype != DType::kFloat32)
    return op_error(call, StatusCode::kUnsupported, "channels-last operands must be float32");
  p.strided = true;
  p.same_shape = false;
  p.plan = strided_plan(y, a, b);
  return ok_status();
}

// self is a number, other a tensor: out = self (op) alpha*other over other's shape.
Result<BinaryParams> prepare_number_self(const KernelCall& call, BinaryKind op, bool has_alpha,
                                         bool channels_last) {
  TIR_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(call, 1, "other"));
  TIR_RETURN_IF_ERROR(check_operand(call, *b, "other", channels_last));
  if (b->dtype != DType::kFloat32 && b->dtype != DType::kFloat64 && b->dtype != DType::kInt64)
    return op_error(call, StatusCode::kUnsupported, "argument 'other' has dtype ",
                    dtype_name(b->dtype), ", only float32, float64 and int64 are supported");
  const bool is_int = b->dtype == DType::kInt64;
  if (is_int && (call.args[0].kind == ArgKind::kFloat || op == BinaryKind::kDiv))
    return op_error(call, StatusCode::kUnsupported,
                    "a number 'self' with an int64 'other' that promotes to float");
  BinaryParams p;
  p.op = op;
  p.dtype = b->dtype;
  p.a_scalar = true;
  p.a_value = call.args[0].scalar();
  p.b_input = static_cast<int>(tensor_input_index(call, 1));
  if (has_alpha) {
    TIR_ASSIGN_OR_RETURN(p.alpha, scalar_arg(call, 2, "alpha"));
    if (is_int && call.args[2].kind == ArgKind::kFloat)
      return op_error(call, StatusCode::kUnsupported, "float alpha with an int64 tensor");
  }
  p.plan = make_broadcast_plan(b->shape(), {}, b->shape());
  call.outputs[0].dtype = b->dtype;
  call.outputs[0].set_shape(b->shape());
  TIR_RETURN_IF_ERROR(finish_layout(call, nullptr, b, channels_last, p));
  return p;
}

template <BinaryKind Op>
Result<BinaryParams> binary_common(const KernelCall& call, bool channels_last) {
  constexpr bool kHasAlpha = Op == BinaryKind::kAdd || Op == BinaryKind::kSub;
  TIR_RETURN_IF_ERROR(check_arity(call, kHasAlpha ? 3 : 2, 1));
  if (is_number(call.args[0]) && !is_number(call.args[1]))
    return prepare_number_self(call, Op, kHasAlpha, channels_last);
  TIR_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(check_operand(call, *a, "self", channels_last));
  BinaryParams p;
  p.op = Op;
  p.dtype = a->dtype;
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  if (a->dtype != DType::kFloat32 && a->dtype != DType::kFloat64 && a->dtype != DType::kInt64) {
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(a->dtype), ", only float32, float64 and int64 are supported");
  }
  if (a->dtype == DType::kInt64 && Op == BinaryKind::kDiv) {
    return op_error(call, StatusCode::kUnsupported, "integer true division is not supported");
  }
  const bool is_int = a->dtype == DType::kInt64;
  if constexpr (kHasAlpha) {
    TIR_ASSIGN_OR_RETURN(p.alpha, scalar_arg(call, 2, "alpha"));
    if (is_int && call.args[2].kind == ArgKind::kFloat) {
      return op_error(call, StatusCode::kUnsupported, "float alpha with an int64 tensor");
    }
  }
  const Arg& other = call.args[1];
  const Tensor* b_tensor = nullptr;  // other, unless a number or a 0-d tensor read as one
  std::span<const int64_t> b_shape;  // empty: scalar
  if (is_number(other)) {
    if (is_int && other.kind == ArgKind::kFloat) {
      return op_error(call, StatusCode::kUnsupported,
                      "int64 tensor with a float scalar 'other' (promotes to float)");
    }
    p.b_scalar = true;
    p.b_value = other.scalar();
  } else {
    TIR_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(call, 1, "other"));
    TIR_RETURN_IF_ERROR(check_operand(call, *b, "other", channels_last));
    p.b_input = static_cast<int>(tensor_input_index(call, 1));
    b_shape = b->shape();
    b_tensor = b;
    if (b->dtype == DType::kBool) {
      p.b_bool = true;  // a mask: bool promotes to self's dtype
    } else if (b->dtype != a->dtype) {
      const bool promotable_scalar =
          !is_int && b->rank == 0 &&
          (b->dtype == DType::kFloat64 || b->dtype == DType::kInt64 || b->dtype == DType::kInt32);
      if (!promotable_scalar) {
        return op_error(call, StatusCode::kUnsupported, "dtypes ", dtype_name(a->dtype), " and ",
                        dtype_name(b->dtype), " of 'self' and 'other' differ");
      }
      p.b_scalar = true;
      p.b_dtype = b->dtype;
      b_tensor = nullptr;
    }
  }
  TIR_ASSIGN_OR_RETURN(auto out, broadcast_shapes(call, a->shape(), b_shape));
  p.plan = make_broadcast_plan(out, a->shape(), p.b_scalar ? std::span<const int64_t>() : b_shape);
  p.same_shape = !p.b_scalar && a->shape().size() == out.size() && b_shape.size() == out.size() &&
                 a->numel() == p.plan.numel() && prod(b_shape, 0, b_shape.size()) == p.plan.numel();
  call.outputs[0].dtype = a->dtype;
  call.outputs[0].set_shape(out);
  TIR_RETURN_IF_ERROR(finish_layout(call, a, b_tensor, channels_last, p));
  return p;
}

}  // namespace

template <BinaryKind Op>
Result<BinaryParams> eltwise_prepare_binary(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return binary_common<Op>(call, false);
}

template <BinaryKind Op>
Result<BinaryParams> eltwise_prepare_binary_channels_last(const KernelCall& call,
                                                          PrepareInfo* out_info) {
  (void)out_info;
  return binary_common<Op>(call, true);
}

template Result<BinaryParams> eltwise_prepare_binary<BinaryKind::kAdd>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<BinaryParams> eltwise_prepare_binary<BinaryKind::kSub>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<BinaryParams> eltwise_prepare_binary<BinaryKind::kMul>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<BinaryParams> eltwise_prepare_binary<BinaryKind::kDiv>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<BinaryParams> eltwise_prepare_binary_channels_last<BinaryKind::kMul>(
    const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
