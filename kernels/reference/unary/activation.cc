// Reference elementwise math: relu(_), sin and cos on float32, activations, unary math,
// tensor-scalar ops and pow.Tensor_Tensor. float32 math runs in double and rounds once; int64 stays
// exact.
#include "kernels/reference/unary/activation.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/ops/unary.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/reference/unary/math.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

double act_value(UnaryKind op, double x, double a, double b) {
  switch (op) {
    case UnaryKind::kGeluErf:
      return ops::gelu_erf(x);
    case UnaryKind::kGeluTanh:
      return ops::gelu_tanh(x);
    case UnaryKind::kTanh:
      return std::tanh(x);
    case UnaryKind::kSigmoid:
      return ops::sigmoid(x);
    case UnaryKind::kSilu:
      return ops::silu(x);
    case UnaryKind::kHardswish:
      return ops::hardswish(x);
    case UnaryKind::kHardsigmoid:
      return ops::hardsigmoid(x);
    case UnaryKind::kHardtanh:
      return x < a ? a : (x > b ? b : x);  // NaN stays NaN
    case UnaryKind::kRelu6:
      return ops::relu6(x);
    case UnaryKind::kRelu:
      return ops::relu(x);
    case UnaryKind::kNeg:
      return -x;
    case UnaryKind::kExp:
      return std::exp(x);
    case UnaryKind::kLog:
      return std::log(x);
    case UnaryKind::kSqrt:
      return std::sqrt(x);
    case UnaryKind::kRsqrt:
      return 1.0 / std::sqrt(x);
    case UnaryKind::kAbs:
      return std::abs(x);
    case UnaryKind::kErf:
      return std::erf(x);
    case UnaryKind::kPowScalar:
      return std::pow(x, a);
    case UnaryKind::kRsub:
      return a - b * x;
    case UnaryKind::kSubScalar:
      return x - b * a;
    case UnaryKind::kDivScalar:
      return x / a;
    default:  // not an act op (act_prepare is not instantiated for it)
      return x;
  }
}

int64_t ipow(int64_t base, int64_t e) {
  uint64_t r = 1, m = static_cast<uint64_t>(base);  // wraps like ATen's int64 arithmetic
  for (; e > 0; e >>= 1, m *= m) {
    if (e & 1) r *= m;
  }
  return static_cast<int64_t>(r);
}

int64_t act_int(UnaryKind op, int64_t x, int64_t a, int64_t b) {
  const auto ux = static_cast<uint64_t>(x);
  switch (op) {
    case UnaryKind::kNeg:
      return static_cast<int64_t>(0 - ux);
    case UnaryKind::kAbs:
      return x < 0 ? static_cast<int64_t>(0 - ux) : x;
    case UnaryKind::kHardtanh:
      return x < a ? a : (x > b ? b : x);
    case UnaryKind::kRelu6:
      return x < 0 ? 0 : (x > 6 ? 6 : x);
    case UnaryKind::kRelu:
      return x < 0 ? 0 : x;
    case UnaryKind::kPowScalar:
      return ipow(x, a);
    case UnaryKind::kRsub:
      return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b) * ux);
    case UnaryKind::kSubScalar:
      return static_cast<int64_t>(ux - static_cast<uint64_t>(b) * static_cast<uint64_t>(a));
    default:
      return x;
  }
}

// A float32 or float64 output (from a tensor of that dtype, or float32 from int64): the map
// runs in double and rounds once; the scalars are rounded to T first, as ATen's kernels of T see
// them.
template <typename T>
void act_float(const ActParams& p, const KernelCall& call) {
  const double a = static_cast<T>(p.a.as_double()), b = static_cast<T>(p.b.as_double());
  T* y = call.outputs[0].data_as<T>();
  if (p.dtype == DType::kInt64) {
    const int64_t* x = call.inputs[p.input].data_as<const int64_t>();
    for (int64_t i = 0; i < p.numel; ++i)
      y[i] = static_cast<T>(act_value(p.op, static_cast<T>(x[i]), a, b));
    return;
  }
  const T* x = call.inputs[p.input].data_as<const T>();
  for (int64_t i = 0; i < p.numel; ++i) y[i] = static_cast<T>(act_value(p.op, x[i], a, b));
}

}  // namespace

void ref_act(const ActParams& p, const KernelCall& call, void*) {
  if (p.float_bounds) {
    const int64_t* x = call.inputs[p.input].data_as<const int64_t>();
    int64_t* y = call.outputs[0].data_as<int64_t>();
    const float lo = static_cast<float>(p.a.as_double()), hi = static_cast<float>(p.b.as_double());
    for (int64_t i = 0; i < p.numel; ++i)
      y[i] = static_cast<int64_t>(std::min(std::max(static_cast<float>(x[i]), lo), hi));
    return;
  }
  if (p.out_dtype == DType::kInt64) {
    const int64_t* x = call.inputs[p.input].data_as<const int64_t>();
    int64_t* y = call.outputs[0].data_as<int64_t>();
    for (int64_t i = 0; i < p.numel; ++i) y[i] = act_int(p.op, x[i], p.a.i, p.b.i);
    return;
  }
  if (p.dtype == DType::kFloat64) {
    act_float<double>(p, call);
  } else {
    act_float<float>(p, call);
  }
}

void ref_pow_tensor(const PowParams& p, const KernelCall& call, void*) {
  auto load = [&](const Operand& o, int64_t idx, auto tag) {
    using T = decltype(tag);
    if (o.input < 0) return o.value.as<T>();
    T v{};
    visit_dtype(o.dtype, [&](auto t) {
      v = static_cast<T>(call.inputs[o.input].data_as<const decltype(t)>()[idx]);
    });
    return v;
  };
  if (p.dtype == DType::kInt64) {
    int64_t* y = call.outputs[0].data_as<int64_t>();
    nary_for_each(p.plan, [&](int64_t o, const std::array<int64_t, 3>& in) {
      const int64_t e = load(p.exponent, in[1], int64_t{});
      const int64_t b = load(p.base, in[0], int64_t{});
      // A negative power of an integer truncates as torch's does: 1 and -1 keep their
      // magnitude, every other base (0 included) gives 0.
      y[o] = e >= 0 ? ipow(b, e) : b == 1 ? 1 : b == -1 ? ((e & 1) ? -1 : 1) : 0;
    });
    return;
  }
  if (p.dtype == DType::kFloat64) {
    double* y = call.outputs[0].data_as<double>();
    nary_for_each(p.plan, [&](int64_t o, const std::array<int64_t, 3>& in) {
      y[o] = std::pow(load(p.base, in[0], double{}), load(p.exponent, in[1], double{}));
    });
    return;
  }
  float* y = call.outputs[0].data_as<float>();
  nary_for_each(p.plan, [&](int64_t o, const std::array<int64_t, 3>& in) {
    y[o] = static_cast<float>(std::pow(static_cast<double>(load(p.base, in[0], float{})),
                                       static_cast<double>(load(p.exponent, in[1], float{}))));
  });
}

namespace {

template <typename F>
void unary(const UnaryParams& p, const KernelCall& call, F f) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  for (int64_t i = 0; i < p.numel; ++i) y[i] = f(x[i]);
}

void ref_relu(const UnaryParams& p, const KernelCall& call, void*) {
  unary(p, call, [](float v) { return ops::relu(v); });  // NaN stays NaN
}
void ref_sin(const UnaryParams& p, const KernelCall& call, void*) {
  unary(p, call, [](float v) { return static_cast<float>(std::sin(static_cast<double>(v))); });
}
void ref_cos(const UnaryParams& p, const KernelCall& call, void*) {
  unary(p, call, [](float v) { return static_cast<float>(std::cos(static_cast<double>(v))); });
}

using ReluRef = FnKernel<UnaryParams, act_prepare_unary_float, ref_relu>;
using SinRef = FnKernel<UnaryParams, act_prepare_unary_float, ref_sin>;
using CosRef = FnKernel<UnaryParams, act_prepare_unary_float, ref_cos>;

}  // namespace

void register_activation_ref(KernelRegistry& registry) {
  registry.add({
      math_unary<UnaryKind::kCos>("aten::cos", DType::kInt64),
      math_unary<UnaryKind::kSin>("aten::sin", DType::kInt64),
      math_unary<UnaryKind::kExp>("aten::exp", DType::kInt64),
      math_unary<UnaryKind::kLog>("aten::log", DType::kInt64),
      math_unary<UnaryKind::kSqrt>("aten::sqrt", DType::kInt64),
      math_unary<UnaryKind::kRsqrt>("aten::rsqrt", DType::kInt64),
      math_unary<UnaryKind::kSigmoid>("aten::sigmoid", DType::kInt64),
      math_unary<UnaryKind::kTanh>("aten::tanh", DType::kInt64),
      math_unary<UnaryKind::kErf>("aten::erf", DType::kInt64),
      math_unary<UnaryKind::kAbs>("aten::abs", DType::kInt32),
      math_unary<UnaryKind::kNeg>("aten::neg", DType::kInt32),
      math_unary<UnaryKind::kAbs>("aten::abs", DType::kFloat64),
      math_unary<UnaryKind::kNeg>("aten::neg", DType::kFloat64),
      {"aten::pow.Tensor_Scalar", kCpu, DType::kFloat64, kRef, &make_kernel<PowTensorRef>},
      {"aten::relu", kCpu, kF32, kRef, &make_kernel<ReluRef>},
      {"aten::relu_", kCpu, kF32, kRef, &make_kernel<ReluRef>},
      {"aten::sin", kCpu, kF32, kRef, &make_kernel<SinRef>},
      {"aten::cos", kCpu, kF32, kRef, &make_kernel<CosRef>},
      {"aten::gelu", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kGeluErf>>},
      {"aten::tanh", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kTanh>>},
      {"aten::sigmoid", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kSigmoid>>},
      {"aten::silu", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kSilu>>},
      {"aten::hardswish", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardswish>>},
      {"aten::hardswish_", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardswish>>},
      {"aten::hardsigmoid", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardsigmoid>>},
      {"aten::hardsigmoid_", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardsigmoid>>},
      {"aten::hardtanh", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
      {"aten::hardtanh", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
      {"aten::hardtanh_", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
      {"aten::relu6", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kRelu6>>},
      {"aten::relu6", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kRelu6>>},
      {"aten::relu", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kRelu>>},
      {"aten::neg", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kNeg>>},
      {"aten::neg", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kNeg>>},
      {"aten::exp", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kExp>>},
      {"aten::log", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kLog>>},
      {"aten::sqrt", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kSqrt>>},
      {"aten::rsqrt", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kRsqrt>>},
      {"aten::abs", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kAbs>>},
      {"aten::abs", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kAbs>>},
      {"aten::erf", kCpu, kF32, kRef, &make_kernel<ActRef<UnaryKind::kErf>>},
  });
  // float64: the same maps, in double throughout (torch's float64 kernels; Flux computes its
  // rotary frequencies in float64).
  registry.add({
      math_unary<UnaryKind::kCos>("aten::cos", kF64),
      math_unary<UnaryKind::kSin>("aten::sin", kF64),
      {"aten::relu", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kRelu>>},
      {"aten::relu_", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kRelu>>},
      {"aten::gelu", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kGeluErf>>},
      {"aten::tanh", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kTanh>>},
      {"aten::sigmoid", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kSigmoid>>},
      {"aten::silu", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kSilu>>},
      {"aten::hardswish", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardswish>>},
      {"aten::hardswish_", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardswish>>},
      {"aten::hardsigmoid", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardsigmoid>>},
      {"aten::hardsigmoid_", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardsigmoid>>},
      {"aten::hardtanh", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
      {"aten::hardtanh_", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
      {"aten::relu6", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kRelu6>>},
      {"aten::exp", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kExp>>},
      {"aten::log", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kLog>>},
      {"aten::sqrt", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kSqrt>>},
      {"aten::rsqrt", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kRsqrt>>},
      {"aten::erf", kCpu, kF64, kRef, &make_kernel<ActRef<UnaryKind::kErf>>},
  });
  // bool: torch's integer-to-float promotion, 0 and 1 as float32 (the generic math kernel);
  // in-place relu and hardtanh of int64 as their functional forms.
  registry.add({
      math_unary<UnaryKind::kCos>("aten::cos", DType::kBool),
      math_unary<UnaryKind::kSin>("aten::sin", DType::kBool),
      math_unary<UnaryKind::kExp>("aten::exp", DType::kBool),
      math_unary<UnaryKind::kLog>("aten::log", DType::kBool),
      math_unary<UnaryKind::kSqrt>("aten::sqrt", DType::kBool),
      math_unary<UnaryKind::kRsqrt>("aten::rsqrt", DType::kBool),
      math_unary<UnaryKind::kSigmoid>("aten::sigmoid", DType::kBool),
      math_unary<UnaryKind::kTanh>("aten::tanh", DType::kBool),
      math_unary<UnaryKind::kErf>("aten::erf", DType::kBool),
      {"aten::relu_", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kRelu>>},
      {"aten::hardtanh_", kCpu, kI64, kRef, &make_kernel<ActRef<UnaryKind::kHardtanh>>},
  });
}
}  // namespace tir::kernels
