// Reference broadcasting add(_)/sub/mul(_)/div and the binary family's registrations.
#include "kernels/kernel_util.h"
#include "kernels/ops/unary.h"
#include "kernels/reference/binary/math.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/reference/unary/activation.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/reduction/any_diff.h"

namespace tir::kernels {
namespace {

// T: storage type, A: arithmetic type (double for float32, int64 for int64).
template <typename T, typename A>
void binary(const BinaryParams& p, const KernelCall& call) {
  T* out = call.outputs[0].data_as<T>();
  const A alpha = static_cast<A>(p.alpha);
  if (p.a_scalar) {  // a number self, rounded to T as ATen does
    const A av = std::is_floating_point_v<T> ? static_cast<A>(static_cast<T>(p.a_value))
                                             : static_cast<A>(p.a_value);
    const T* b = call.inputs[p.b_input].data_as<const T>();
    const int64_t n = p.plan.numel();
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<T>(ops::binary_apply<A>(p.op, av, b[i], alpha));
    return;
  }
  const T* a = call.inputs[p.a_input].data_as<const T>();
  if (p.b_bool) {
    const uint8_t* mask = call.inputs[p.b_input].data_as<const uint8_t>();
    broadcast_for_each(p.plan, [&](int64_t o, int64_t ia, int64_t ib) {
      out[o] = static_cast<T>(ops::binary_apply<A>(p.op, a[ia], mask[ib] ? A(1) : A(0), alpha));
    });
    return;
  }
  if (p.b_scalar) {
    const double bv =
        p.b_input >= 0 ? read_scalar_tensor(call.inputs[p.b_input], p.b_dtype) : p.b_value;
    // float32 math ops see the scalar rounded to float32, as ATen does.
    const A b =
        std::is_floating_point_v<T> ? static_cast<A>(static_cast<T>(bv)) : static_cast<A>(bv);
    const int64_t n = p.plan.numel();
    for (int64_t i = 0; i < n; ++i)
      out[i] = static_cast<T>(ops::binary_apply<A>(p.op, a[i], b, alpha));
    return;
  }
  const T* b = call.inputs[p.b_input].data_as<const T>();
  broadcast_for_each(p.plan, [&](int64_t o, int64_t ia, int64_t ib) {
    out[o] = static_cast<T>(ops::binary_apply<A>(p.op, a[ia], b[ib], alpha));
  });
}

// clamp(x, min, max) on float32 with number bounds.
void ref_clamp(const ClampParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  for (int64_t i = 0; i < p.numel; ++i) {
    const double v = x[i];  // NaN stays NaN, as in torch
    y[i] = static_cast<float>(v < p.lo ? p.lo : (v > p.hi ? p.hi : v));
  }
}

}  // namespace

void ref_binary(const BinaryParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kInt64) {
    binary<int64_t, int64_t>(p, call);
  } else if (p.dtype == DType::kFloat64) {
    binary<double, double>(p, call);
  } else {
    binary<float, double>(p, call);
  }
}

namespace {

template <BinaryKind Op>
using BinaryRef = FnKernel<BinaryParams, eltwise_prepare_binary<Op>, ref_binary>;
using ClampRef = FnKernel<ClampParams, misc_prepare_clamp, ref_clamp>;

/// The binary functions beyond arithmetic (kernels/ops/binary.h: kFmax to kHeaviside).
void register_math_functions(KernelRegistry& registry) {
  registry.add({
      math_binary<BinaryKind::kFmax>("aten::fmax"),
      math_binary<BinaryKind::kFmin>("aten::fmin"),
      math_binary<BinaryKind::kHypot>("aten::hypot"),
      math_binary<BinaryKind::kLogaddexp>("aten::logaddexp"),
      math_binary<BinaryKind::kLogaddexp2>("aten::logaddexp2"),
      math_binary<BinaryKind::kCopysign>("aten::copysign.Tensor"),
      math_binary<BinaryKind::kCopysign>("aten::copysign.Scalar"),
      math_binary<BinaryKind::kXlogy>("aten::xlogy.Tensor"),
      math_binary<BinaryKind::kXlogy>("aten::xlogy.Scalar_Self"),
      math_binary<BinaryKind::kXlogy>("aten::xlogy.Scalar_Other"),
      math_binary<BinaryKind::kHeaviside>("aten::heaviside"),
  });
}

}  // namespace

void register_arithmetic_ref(KernelRegistry& registry) {
  register_math_functions(registry);
  registry.add({
      math_binary<BinaryKind::kAtan2>("aten::atan2"),
      // out= form (core ATen lists it): the result is computed as atan2's; `out` is not read.
      math_binary<BinaryKind::kAtan2>("aten::atan2.out"),
      math_binary<BinaryKind::kFmod>("aten::fmod.Tensor"),
      math_binary<BinaryKind::kFmod>("aten::fmod.Scalar"),
      math_binary<BinaryKind::kRemainder>("aten::remainder.Tensor"),
      math_binary<BinaryKind::kRemainder>("aten::remainder.Scalar"),
      math_binary<BinaryKind::kMaximum>("aten::maximum"),
      math_binary<BinaryKind::kMinimum>("aten::minimum"),
      math_binary<BinaryKind::kMaximum>("aten::max.other"),
      math_binary<BinaryKind::kMinimum>("aten::min.other"),
      math_binary<BinaryKind::kDivFloor>("aten::floor_divide"),
      math_binary<BinaryKind::kPow>("aten::pow.Scalar"),
      math_binary<BinaryKind::kBitAnd>("aten::bitwise_and.Scalar"),
      math_binary<BinaryKind::kBitOr>("aten::bitwise_or.Scalar"),
      math_binary<BinaryKind::kBitXor>("aten::bitwise_xor.Scalar"),
      math_binary<BinaryKind::kBitXor>("aten::bitwise_xor.Tensor"),
      math_binary<BinaryKind::kLogicalAnd>("aten::logical_and"),
      math_binary<BinaryKind::kLogicalOr>("aten::logical_or"),
      math_binary<BinaryKind::kLogicalXor>("aten::logical_xor"),
      {"aten::div.Tensor_mode", kCpu, kAny, kRef, &make_kernel<MathDivModeRef>},
      {"aten::div.Scalar_mode", kCpu, kAny, kRef, &make_kernel<MathDivModeRef>},
      {"aten::clamp.Tensor", kCpu, kAny, kRef, &make_kernel<MathClampRef>},
      {"aten::addcmul", kCpu, kAny, kRef, &make_kernel<MathTernaryRef<BinaryKind::kAddcmul>>},
      {"aten::addcdiv", kCpu, kAny, kRef, &make_kernel<MathTernaryRef<BinaryKind::kAddcdiv>>},
      {"aten::lerp.Tensor", kCpu, kAny, kRef, &make_kernel<MathTernaryRef<BinaryKind::kLerp>>},
      {"aten::lerp.Scalar", kCpu, kAny, kRef, &make_kernel<MathTernaryRef<BinaryKind::kLerp>>},
      math_binary<BinaryKind::kBitAnd>("aten::bitwise_and.Tensor", DType::kInt32),
      math_binary<BinaryKind::kBitOr>("aten::bitwise_or.Tensor", DType::kInt32),
      {"aten::clamp", kCpu, DType::kInt64, kRef, &make_kernel<MathClampRef>},
      {"aten::clamp", kCpu, DType::kInt32, kRef, &make_kernel<MathClampRef>},
      {"aten::clamp", kCpu, kF64, kRef, &make_kernel<MathClampRef>},
      math_binary<BinaryKind::kAdd>("aten::add.Tensor", DType::kInt32),
      math_binary<BinaryKind::kAdd>("aten::add.Tensor", DType::kBool),
      math_binary<BinaryKind::kAdd>("aten::add.Scalar", DType::kInt32),
      math_binary<BinaryKind::kSub>("aten::sub.Tensor", DType::kInt32),
      math_binary<BinaryKind::kSub>("aten::sub.Scalar", DType::kInt32),
      math_binary<BinaryKind::kMul>("aten::mul.Tensor", DType::kInt32),
      math_binary<BinaryKind::kMul>("aten::mul.Tensor", DType::kBool),
      math_binary<BinaryKind::kMul>("aten::mul.Scalar", DType::kInt32),
      math_binary<BinaryKind::kDiv>("aten::div.Tensor", DType::kInt64),
      math_binary<BinaryKind::kDiv>("aten::div.Tensor", DType::kInt32),
      math_binary<BinaryKind::kDiv>("aten::div.Tensor", DType::kBool),
      math_binary<BinaryKind::kBitAnd>("aten::bitwise_and.Tensor", kBool),
      math_binary<BinaryKind::kBitAnd>("aten::bitwise_and.Tensor", kI64),
      math_binary<BinaryKind::kBitOr>("aten::bitwise_or.Tensor", kBool),
      math_binary<BinaryKind::kBitOr>("aten::bitwise_or.Tensor", kI64),
      {"aten::pow.Tensor_Scalar", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kPowScalar>>},
      {"aten::pow.Tensor_Scalar", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kPowScalar>>},
      {"aten::rsub.Scalar", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kRsub>>},
      {"aten::rsub.Scalar", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kRsub>>},
      {"aten::sub.Scalar", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kSubScalar>>},
      {"aten::sub.Scalar", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kSubScalar>>},
      {"aten::div.Scalar", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kDivScalar>>},
      {"aten::div.Scalar", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kDivScalar>>},
      {"aten::pow.Tensor_Tensor", kCpu, DType::kUndefined, kRef, &make_kernel<PowTensorRef>},
      {"aten::clamp", kCpu, DType::kFloat32, kRef, &make_kernel<ClampRef>},
      {"aten::add.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add.Tensor", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add_.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add_.Tensor", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add.Scalar", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add.Scalar", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::sub.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kSub>>},
      {"aten::sub.Tensor", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kSub>>},
      {"aten::mul.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul.Tensor", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul_.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul_.Tensor", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul.Scalar", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul.Scalar", kCpu, kI64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::div.Tensor", kCpu, kF32, kRef, &make_kernel<BinaryRef<BinaryKind::kDiv>>},
      {"aten::add.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::sub.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kSub>>},
      {"aten::mul.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::div.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kDiv>>},
      {"aten::add.Scalar", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::add_.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kAdd>>},
      {"aten::mul.Scalar", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::mul_.Tensor", kCpu, kF64, kRef, &make_kernel<BinaryRef<BinaryKind::kMul>>},
      {"aten::rsub.Scalar", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kRsub>>},
      {"aten::sub.Scalar", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kSubScalar>>},
      {"aten::div.Scalar", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kDivScalar>>},
      math_binary<BinaryKind::kMul>("aten::mul.Scalar", DType::kBool),
      math_binary<BinaryKind::kMul>("aten::mul_.Tensor", DType::kBool),
  });
}
}  // namespace tir::kernels
