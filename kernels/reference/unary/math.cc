// Reference element-wise unary math (kernels/shapes/unary/math.h). Floating-point ops run in
// double and round once to the output dtype; integer ops stay exact in int64 with ATen's
// wrap-around.
#include "kernels/reference/unary/math.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

// The maps with parameters (p.a, p.b, p.c, p.decimals) and the piecewise ones.
double parametric_float(const MathUnaryParams& p, double x) {
  switch (p.op) {
    case UnaryKind::kLeakyRelu:
      return x > 0 ? x : x * p.a;
    case UnaryKind::kElu:
      return x > 0 ? x * p.b : p.a * p.b * std::expm1(x * p.c);
    case UnaryKind::kSoftplus:
      return x * p.a > p.b ? x : std::log1p(std::exp(x * p.a)) / p.a;
    case UnaryKind::kMish:
      return x * std::tanh(x > 20 ? x : std::log1p(std::exp(x)));
    case UnaryKind::kLogSigmoid:
      return std::min(x, 0.0) - std::log1p(std::exp(-std::abs(x)));
    case UnaryKind::kThreshold:
      return x > p.a ? x : p.b;
    case UnaryKind::kHardshrink:
      return std::abs(x) > p.a ? x : 0.0;
    case UnaryKind::kSoftshrink:
      return x > p.a ? x - p.a : (x < -p.a ? x + p.a : 0.0);
    case UnaryKind::kErfc:
      return std::erfc(x);
    case UnaryKind::kExp2:
      return std::exp2(x);
    case UnaryKind::kLogit: {
      const double z = p.c != 0 ? std::clamp(x, p.a, 1.0 - p.a) : x;
      return std::log(z / (1.0 - z));
    }
    case UnaryKind::kSinc: {
      if (x == 0) return 1.0;
      const double px = std::numbers::pi * x;
      return std::sin(px) / px;
    }
    case UnaryKind::kFrac:
      return x - std::trunc(x);
    case UnaryKind::kNanToNum:
      return std::isnan(x) ? p.a : (std::isinf(x) ? (x > 0 ? p.b : p.c) : x);
    case UnaryKind::kRoundDecimals: {
      const double scale = std::pow(10.0, static_cast<double>(p.decimals));
      return std::nearbyint(x * scale) / scale;
    }
    default:
      return x;
  }
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
      return static_cast<double>((x > 0) - (x < 0));  // NaN: 0, as torch's sign
    case UnaryKind::kAbs:
      return std::abs(x);
    case UnaryKind::kNeg:
      return -x;
    default:
      return parametric_float(p, x);
  }
}

// isnan/isinf/isfinite/signbit: a bool output.
bool predicate(UnaryKind op, double x) {
  switch (op) {
    case UnaryKind::kIsnan:
      return std::isnan(x);
    case UnaryKind::kIsinf:
      return std::isinf(x);
    case UnaryKind::kIsfinite:
      return std::isfinite(x);
    default:
      return std::signbit(x);
  }
}

void run_predicate(const MathUnaryParams& p, const KernelCall& call) {
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    store_output<bool>(call, i, predicate(p.op, operand_load<double>(p.x, call, in[0])));
  });
}

// Unary math: floats in double (unary_float), integers exact (sign, abs, neg).
template <typename T>
void run_unary(const MathUnaryParams& p, const KernelCall& call) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (kFloat) {
      store_output<T>(call, i,
                      static_cast<T>(unary_float(p, operand_load<double>(p.x, call, in[0]))));
    } else if constexpr (std::is_same_v<T, bool>) {
      store_output<T>(call, i, operand_load<bool>(p.x, call, in[0]));  // abs of bool
    } else {
      const int64_t x = operand_load<int64_t>(p.x, call, in[0]);
      int64_t y = x;
      if (p.op == UnaryKind::kSign) y = (x > 0) - (x < 0);
      if (p.op == UnaryKind::kAbs && x < 0) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      if (p.op == UnaryKind::kNeg) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      store_output<T>(call, i, static_cast<T>(y));
    }
  });
}

}  // namespace

void ref_math_unary(const MathUnaryParams& p, const KernelCall& call, void*) {
  if (p.out == DType::kBool) {
    run_predicate(p, call);
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
      math_unary<UnaryKind::kSoftplus>("aten::softplus"),
      math_unary<UnaryKind::kMish>("aten::mish"),
      math_unary<UnaryKind::kLogSigmoid>("aten::log_sigmoid"),
      math_unary<UnaryKind::kThreshold>("aten::threshold"),
      math_unary<UnaryKind::kHardshrink>("aten::hardshrink"),
      math_unary<UnaryKind::kSoftshrink>("aten::softshrink"),
      math_unary<UnaryKind::kErfc>("aten::erfc"),
      math_unary<UnaryKind::kExp2>("aten::exp2"),
      math_unary<UnaryKind::kLogit>("aten::logit"),
      math_unary<UnaryKind::kSinc>("aten::sinc"),
      math_unary<UnaryKind::kFrac>("aten::frac"),
      math_unary<UnaryKind::kNanToNum>("aten::nan_to_num"),
      math_unary<UnaryKind::kIsfinite>("aten::isfinite"),
      math_unary<UnaryKind::kSignbit>("aten::signbit"),
  });
}
}  // namespace tir::kernels
