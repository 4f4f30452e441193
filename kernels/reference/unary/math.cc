// Reference element-wise unary math (kernels/shapes/unary/math.h). Floating-point ops run in
// double and round once to the output dtype; integer ops stay exact in int64 with ATen's
// wrap-around.
#include "kernels/reference/unary/math.h"

#include <cmath>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename T>
void store(const KernelCall& call, int64_t i, T v) {
  call.outputs[0].data_as<T>()[i] = v;
}

double unary_float(const MathUnaryParams& p, double x) {
  switch (p.op) {
    case UnaryKind::kAcos:
      return std::acos(x);
    case UnaryKind::kAcosh:
      return std::acosh(x);
    case UnaryKind::kAsin:
      return std::asin(x);
    case UnaryKind::kAsinh:
      return std::asinh(x);
    case UnaryKind::kAtan:
      return std::atan(x);
    case UnaryKind::kAtanh:
      return std::atanh(x);
    case UnaryKind::kCosh:
      return std::cosh(x);
    case UnaryKind::kSinh:
      return std::sinh(x);
    case UnaryKind::kTan:
      return std::tan(x);
    case UnaryKind::kExpm1:
      return std::expm1(x);
    case UnaryKind::kLog1p:
      return std::log1p(x);
    case UnaryKind::kLog2:
      return std::log2(x);
    case UnaryKind::kLog10:
      return std::log10(x);
    case UnaryKind::kReciprocal:
      return 1.0 / x;
    case UnaryKind::kCos:
      return std::cos(x);
    case UnaryKind::kSin:
      return std::sin(x);
    case UnaryKind::kExp:
      return std::exp(x);
    case UnaryKind::kLog:
      return std::log(x);
    case UnaryKind::kSqrt:
      return std::sqrt(x);
    case UnaryKind::kRsqrt:
      return 1.0 / std::sqrt(x);
    case UnaryKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case UnaryKind::kTanh:
      return std::tanh(x);
    case UnaryKind::kErf:
      return std::erf(x);
    case UnaryKind::kCeil:
      return std::ceil(x);
    case UnaryKind::kFloor:
      return std::floor(x);
    case UnaryKind::kRound:
      return std::nearbyint(x);  // half to even, as torch.round
    case UnaryKind::kTrunc:
      return std::trunc(x);
    case UnaryKind::kSign:
      return std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0));
    case UnaryKind::kAbs:
      return std::abs(x);
    case UnaryKind::kNeg:
      return -x;
    case UnaryKind::kLeakyRelu:
      return x > 0 ? x : x * p.a;
    case UnaryKind::kElu:
      return x > 0 ? x * p.b : p.a * p.b * std::expm1(x * p.c);
    case UnaryKind::kRoundDecimals: {
      const double scale = std::pow(10.0, static_cast<double>(p.decimals));
      return std::nearbyint(x * scale) / scale;
    }
    default:
      return x;
  }
}

// isnan/isinf: a bool output.
void run_isnan_isinf(const MathUnaryParams& p, const KernelCall& call) {
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    const double x = operand_load<double>(p.x, call, in[0]);
    store<bool>(call, i, p.op == UnaryKind::kIsnan ? std::isnan(x) : std::isinf(x));
  });
}

// Unary math: floats in double (unary_float), integers exact (sign, abs, neg).
template <typename T>
void run_unary(const MathUnaryParams& p, const KernelCall& call) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (kFloat) {
      store<T>(call, i, static_cast<T>(unary_float(p, operand_load<double>(p.x, call, in[0]))));
    } else if constexpr (std::is_same_v<T, bool>) {
      store<T>(call, i, operand_load<bool>(p.x, call, in[0]));  // abs of bool
    } else {
      const int64_t x = operand_load<int64_t>(p.x, call, in[0]);
      int64_t y = x;
      if (p.op == UnaryKind::kSign) y = (x > 0) - (x < 0);
      if (p.op == UnaryKind::kAbs && x < 0) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      if (p.op == UnaryKind::kNeg) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      store<T>(call, i, static_cast<T>(y));
    }
  });
}

}  // namespace

void ref_math_unary(const MathUnaryParams& p, const KernelCall& call, void*) {
  if (p.op == UnaryKind::kIsnan || p.op == UnaryKind::kIsinf) {
    run_isnan_isinf(p, call);
    return;
  }
  visit_dtype(p.compute, [&](auto tag) { run_unary<decltype(tag)>(p, call); });
}

void register_math_ref(KernelRegistry& registry) {
  registry.add({
      math_unary<UnaryKind::kAcos>("aten::acos"),
      math_unary<UnaryKind::kAcosh>("aten::acosh"),
      math_unary<UnaryKind::kAsin>("aten::asin"),
      math_unary<UnaryKind::kAsinh>("aten::asinh"),
      math_unary<UnaryKind::kAtan>("aten::atan"),
      math_unary<UnaryKind::kAtanh>("aten::atanh"),
      math_unary<UnaryKind::kCosh>("aten::cosh"),
      math_unary<UnaryKind::kSinh>("aten::sinh"),
      math_unary<UnaryKind::kTan>("aten::tan"),
      math_unary<UnaryKind::kExpm1>("aten::expm1"),
      math_unary<UnaryKind::kLog1p>("aten::log1p"),
      math_unary<UnaryKind::kLog2>("aten::log2"),
      math_unary<UnaryKind::kLog10>("aten::log10"),
      math_unary<UnaryKind::kReciprocal>("aten::reciprocal"),
      math_unary<UnaryKind::kCeil>("aten::ceil"),
      math_unary<UnaryKind::kFloor>("aten::floor"),
      math_unary<UnaryKind::kRound>("aten::round"),
      math_unary<UnaryKind::kRoundDecimals>("aten::round.decimals"),
      math_unary<UnaryKind::kTrunc>("aten::trunc"),
      math_unary<UnaryKind::kSign>("aten::sign"),
      math_unary<UnaryKind::kIsnan>("aten::isnan"),
      math_unary<UnaryKind::kIsinf>("aten::isinf"),
      math_unary<UnaryKind::kLeakyRelu>("aten::leaky_relu"),
      math_unary<UnaryKind::kElu>("aten::elu"),
  });
}
}  // namespace tir::kernels
