// Reference elementwise math: activations, unary math, tensor-scalar ops and
// pow.Tensor_Tensor. float32 math runs in double and rounds once; int64 stays exact.
#include "kernels/reference/unary/activation.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/ops/unary.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/reference/unary/math.h"

namespace tir::kernels {
namespace {

double act_value(ActOp op, double x, double a, double b) {
  switch (op) {
    case ActOp::kGelu:
      return ops::gelu_erf(x);
    case ActOp::kGeluTanh:
      return ops::gelu_tanh(x);
    case ActOp::kTanh:
      return std::tanh(x);
    case ActOp::kSigmoid:
      return ops::sigmoid(x);
    case ActOp::kSilu:
      return ops::silu(x);
    case ActOp::kHardswish:
      return ops::hardswish(x);
    case ActOp::kHardsigmoid:
      return ops::hardsigmoid(x);
    case ActOp::kHardtanh:
      return x < a ? a : (x > b ? b : x);  // NaN stays NaN
    case ActOp::kRelu6:
      return ops::relu6(x);
    case ActOp::kRelu:
      return ops::relu(x);
    case ActOp::kNeg:
      return -x;
    case ActOp::kExp:
      return std::exp(x);
    case ActOp::kLog:
      return std::log(x);
    case ActOp::kSqrt:
      return std::sqrt(x);
    case ActOp::kRsqrt:
      return 1.0 / std::sqrt(x);
    case ActOp::kAbs:
      return std::abs(x);
    case ActOp::kErf:
      return std::erf(x);
    case ActOp::kPowScalar:
      return std::pow(x, a);
    case ActOp::kRsub:
      return a - b * x;
    case ActOp::kSubScalar:
      return x - b * a;
    case ActOp::kDivScalar:
      return x / a;
  }
  return x;
}

int64_t ipow(int64_t base, int64_t e) {
  uint64_t r = 1, m = static_cast<uint64_t>(base);  // wraps like ATen's int64 arithmetic
  for (; e > 0; e >>= 1, m *= m) {
    if (e & 1) r *= m;
  }
  return static_cast<int64_t>(r);
}

int64_t act_int(ActOp op, int64_t x, int64_t a, int64_t b) {
  const auto ux = static_cast<uint64_t>(x);
  switch (op) {
    case ActOp::kNeg:
      return static_cast<int64_t>(0 - ux);
    case ActOp::kAbs:
      return x < 0 ? static_cast<int64_t>(0 - ux) : x;
    case ActOp::kHardtanh:
      return x < a ? a : (x > b ? b : x);
    case ActOp::kRelu6:
      return x < 0 ? 0 : (x > 6 ? 6 : x);
    case ActOp::kRelu:
      return x < 0 ? 0 : x;
    case ActOp::kPowScalar:
      return ipow(x, a);
    case ActOp::kRsub:
      return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b) * ux);
    case ActOp::kSubScalar:
      return static_cast<int64_t>(ux - static_cast<uint64_t>(b) * static_cast<uint64_t>(a));
    default:
      return x;
  }
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
  // float32 ops see their scalars rounded to float32, as ATen does.
  const double a = static_cast<float>(p.a.as_double()), b = static_cast<float>(p.b.as_double());
  float* y = call.outputs[0].data_as<float>();
  if (p.dtype == DType::kInt64) {
    const int64_t* x = call.inputs[p.input].data_as<const int64_t>();
    for (int64_t i = 0; i < p.numel; ++i) {
      y[i] = static_cast<float>(act_value(p.op, static_cast<float>(x[i]), a, b));
    }
    return;
  }
  const float* x = call.inputs[p.input].data_as<const float>();
  for (int64_t i = 0; i < p.numel; ++i) y[i] = static_cast<float>(act_value(p.op, x[i], a, b));
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
      y[o] = e < 0 ? 0 : ipow(load(p.base, in[0], int64_t{}), e);
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

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;
constexpr auto kI64 = DType::kInt64;

}  // namespace

void register_activation_ref(KernelRegistry& registry) {
  registry.add({
      math_unary<MathOp::kCos>("aten::cos", DType::kInt64),
      math_unary<MathOp::kSin>("aten::sin", DType::kInt64),
      math_unary<MathOp::kExp>("aten::exp", DType::kInt64),
      math_unary<MathOp::kLog>("aten::log", DType::kInt64),
      math_unary<MathOp::kSqrt>("aten::sqrt", DType::kInt64),
      math_unary<MathOp::kRsqrt>("aten::rsqrt", DType::kInt64),
      math_unary<MathOp::kSigmoid>("aten::sigmoid", DType::kInt64),
      math_unary<MathOp::kTanh>("aten::tanh", DType::kInt64),
      math_unary<MathOp::kErf>("aten::erf", DType::kInt64),
      math_unary<MathOp::kAbs>("aten::abs", DType::kInt32),
      math_unary<MathOp::kNeg>("aten::neg", DType::kInt32),
      {"aten::relu", kCpu, kF32, kRef, &make_kernel<ReluRef>},
      {"aten::relu_", kCpu, kF32, kRef, &make_kernel<ReluRef>},
      {"aten::sin", kCpu, kF32, kRef, &make_kernel<SinRef>},
      {"aten::cos", kCpu, kF32, kRef, &make_kernel<CosRef>},
      {"aten::gelu", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kGelu>>},
      {"aten::tanh", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kTanh>>},
      {"aten::sigmoid", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kSigmoid>>},
      {"aten::silu", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kSilu>>},
      {"aten::hardswish", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardswish>>},
      {"aten::hardswish_", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardswish>>},
      {"aten::hardsigmoid", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardsigmoid>>},
      {"aten::hardsigmoid_", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardsigmoid>>},
      {"aten::hardtanh", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardtanh>>},
      {"aten::hardtanh", kCpu, kI64, kRef, &make_kernel<ActRef<ActOp::kHardtanh>>},
      {"aten::hardtanh_", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kHardtanh>>},
      {"aten::relu6", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kRelu6>>},
      {"aten::relu6", kCpu, kI64, kRef, &make_kernel<ActRef<ActOp::kRelu6>>},
      {"aten::relu", kCpu, kI64, kRef, &make_kernel<ActRef<ActOp::kRelu>>},
      {"aten::neg", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kNeg>>},
      {"aten::neg", kCpu, kI64, kRef, &make_kernel<ActRef<ActOp::kNeg>>},
      {"aten::exp", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kExp>>},
      {"aten::log", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kLog>>},
      {"aten::sqrt", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kSqrt>>},
      {"aten::rsqrt", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kRsqrt>>},
      {"aten::abs", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kAbs>>},
      {"aten::abs", kCpu, kI64, kRef, &make_kernel<ActRef<ActOp::kAbs>>},
      {"aten::erf", kCpu, kF32, kRef, &make_kernel<ActRef<ActOp::kErf>>},
  });
}
}  // namespace tir::kernels
