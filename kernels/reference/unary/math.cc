// Reference element-wise math (kernels/shapes/unary/math.h). Floating-point ops run in
// double and round once to the output dtype; integer ops stay exact in int64 with ATen's
// wrap-around, floor-division and remainder-sign rules.
#include "kernels/reference/unary/math.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

// Element `idx` of operand `o` as T (a scalar operand ignores idx).
template <typename T>
T load(const Operand& o, const KernelCall& call, int64_t idx) {
  if (o.input < 0) return o.value.as<T>();
  T v{};
  visit_dtype(o.dtype, [&](auto tag) {
    using S = decltype(tag);
    v = static_cast<T>(static_cast<const S*>(call.inputs[o.input].data)[idx]);
  });
  return v;
}

double unary_float(const MathParams& p, double x) {
  switch (p.op) {
    case MathOp::kAcos:
      return std::acos(x);
    case MathOp::kAcosh:
      return std::acosh(x);
    case MathOp::kAsin:
      return std::asin(x);
    case MathOp::kAsinh:
      return std::asinh(x);
    case MathOp::kAtan:
      return std::atan(x);
    case MathOp::kAtanh:
      return std::atanh(x);
    case MathOp::kCosh:
      return std::cosh(x);
    case MathOp::kSinh:
      return std::sinh(x);
    case MathOp::kTan:
      return std::tan(x);
    case MathOp::kExpm1:
      return std::expm1(x);
    case MathOp::kLog1p:
      return std::log1p(x);
    case MathOp::kLog2:
      return std::log2(x);
    case MathOp::kLog10:
      return std::log10(x);
    case MathOp::kReciprocal:
      return 1.0 / x;
    case MathOp::kCos:
      return std::cos(x);
    case MathOp::kSin:
      return std::sin(x);
    case MathOp::kExp:
      return std::exp(x);
    case MathOp::kLog:
      return std::log(x);
    case MathOp::kSqrt:
      return std::sqrt(x);
    case MathOp::kRsqrt:
      return 1.0 / std::sqrt(x);
    case MathOp::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case MathOp::kTanh:
      return std::tanh(x);
    case MathOp::kErf:
      return std::erf(x);
    case MathOp::kCeil:
      return std::ceil(x);
    case MathOp::kFloor:
      return std::floor(x);
    case MathOp::kRound:
      return std::nearbyint(x);  // half to even, as torch.round
    case MathOp::kTrunc:
      return std::trunc(x);
    case MathOp::kSign:
      return std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0));
    case MathOp::kAbs:
      return std::abs(x);
    case MathOp::kNeg:
      return -x;
    case MathOp::kLeakyRelu:
      return x > 0 ? x : x * p.a;
    case MathOp::kElu:
      return x > 0 ? x * p.b : p.a * p.b * std::expm1(x * p.c);
    case MathOp::kRoundDecimals: {
      const double scale = std::pow(10.0, static_cast<double>(p.ia));
      return std::nearbyint(x * scale) / scale;
    }
    default:
      return x;
  }
}

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? (e % 2 ? -1 : 1) : 0);
  uint64_t r = 1, m = static_cast<uint64_t>(base);
  for (; e > 0; e >>= 1, m *= m)
    if (e & 1) r *= m;
  return static_cast<int64_t>(r);
}

double binary_float(const MathParams& p, double a, double b) {
  switch (p.op) {
    case MathOp::kAdd:
      return a + p.a * b;
    case MathOp::kSub:
      return a - p.a * b;
    case MathOp::kMul:
      return a * b;
    case MathOp::kFmod:
      return std::fmod(a, b);
    case MathOp::kRemainder: {
      const double r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
    case MathOp::kMaximum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::max(a, b);
    case MathOp::kMinimum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::min(a, b);
    case MathOp::kDivTrunc:
      return std::trunc(a / b);
    case MathOp::kDivFloor: {
      // ATen's div_floor: floor of the true quotient computed through fmod, exact for
      // representable quotients.
      if (b == 0) return a / b;
      double mod = std::fmod(a, b);
      double div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
      if (div == 0) return std::copysign(0.0, a / b);
      double fl = std::floor(div);
      if (div - fl > 0.5) fl += 1.0;
      return fl;
    }
    case MathOp::kDivTrue:
      return a / b;
    case MathOp::kAtan2:
      return std::atan2(a, b);
    case MathOp::kPow:
      return std::pow(a, b);
    default:
      return 0;
  }
}

// Integer binary math; `ok` false for integer division by zero (the caller reports it).
int64_t binary_int(const MathParams& p, int64_t a, int64_t b, bool& ok) {
  switch (p.op) {
    case MathOp::kAdd:
      return wrap_add(a, wrap_mul(p.ia, b));
    case MathOp::kSub:
      return wrap_add(a, -wrap_mul(p.ia, b));
    case MathOp::kMul:
      return wrap_mul(a, b);
    case MathOp::kMaximum:
      return std::max(a, b);
    case MathOp::kMinimum:
      return std::min(a, b);
    case MathOp::kBitAnd:
      return a & b;
    case MathOp::kBitOr:
      return a | b;
    case MathOp::kBitXor:
      return a ^ b;
    case MathOp::kPow:
      return int_pow(a, b);
    case MathOp::kFmod:
    case MathOp::kRemainder:
    case MathOp::kDivTrunc:
    case MathOp::kDivFloor: {
      if (b == 0) {
        ok = false;
        return 0;
      }
      if (b == -1) {  // avoids INT64_MIN / -1
        return p.op == MathOp::kFmod || p.op == MathOp::kRemainder
                   ? 0
                   : static_cast<int64_t>(0 - static_cast<uint64_t>(a));
      }
      const int64_t q = a / b, r = a % b;
      if (p.op == MathOp::kFmod) return r;
      if (p.op == MathOp::kDivTrunc) return q;
      const bool adjust = r != 0 && ((r < 0) != (b < 0));
      if (p.op == MathOp::kRemainder) return adjust ? r + b : r;
      return adjust ? q - 1 : q;
    }
    default:
      return 0;
  }
}

template <typename T>
void store(const KernelCall& call, int64_t i, T v) {
  call.outputs[0].data_as<T>()[i] = v;
}

// isnan/isinf: a bool output.
void run_isnan_isinf(const MathParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    const double x = load<double>(o[0], call, in[0]);
    store<bool>(call, i, p.op == MathOp::kIsnan ? std::isnan(x) : std::isinf(x));
  });
}

// logical and/or/xor: a bool output.
template <typename T>
void run_logical(const MathParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    const bool a = load<T>(o[0], call, in[0]) != T{}, b = load<T>(o[1], call, in[1]) != T{};
    store<bool>(call, i,
                p.op == MathOp::kLogicalAnd  ? a && b
                : p.op == MathOp::kLogicalOr ? a || b
                                             : a != b);
  });
}

// clamp(x, min, max), either bound optional; a NaN operand wins.
template <typename T>
void run_clamp(const MathParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  constexpr bool kFloat = std::is_floating_point_v<T>;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    T x = load<T>(o[0], call, in[0]);
    if constexpr (kFloat) {
      if (std::isnan(x)) return store<T>(call, i, x);
    }
    if (p.present[1]) {
      const T lo = load<T>(o[1], call, in[1]);
      if constexpr (kFloat) {
        if (std::isnan(lo)) return store<T>(call, i, lo);
      }
      x = x < lo ? lo : x;
    }
    if (p.present[2]) {
      const T hi = load<T>(o[2], call, in[2]);
      if constexpr (kFloat) {
        if (std::isnan(hi)) return store<T>(call, i, hi);
      }
      x = x > hi ? hi : x;
    }
    store<T>(call, i, x);
  });
}

// Unary math: floats in double (unary_float), integers exact (sign, abs, neg).
template <typename T>
void run_unary(const MathParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  constexpr bool kFloat = std::is_floating_point_v<T>;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (kFloat) {
      store<T>(call, i, static_cast<T>(unary_float(p, load<double>(o[0], call, in[0]))));
    } else if constexpr (std::is_same_v<T, bool>) {
      store<T>(call, i, load<bool>(o[0], call, in[0]));  // abs of bool
    } else {
      const int64_t x = load<int64_t>(o[0], call, in[0]);
      int64_t y = x;
      if (p.op == MathOp::kSign) y = (x > 0) - (x < 0);
      if (p.op == MathOp::kAbs && x < 0) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      if (p.op == MathOp::kNeg) y = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      store<T>(call, i, static_cast<T>(y));
    }
  });
}

// Binary math: floats in double (binary_float), bools as logic, integers exact in int64
// (binary_int); fails on an integer division by zero.
template <typename T>
Status run_binary(const MathParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  constexpr bool kFloat = std::is_floating_point_v<T>;
  bool ok = true;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (kFloat) {
      double a = load<T>(o[0], call, in[0]), b = load<T>(o[1], call, in[1]);
      store<T>(call, i, static_cast<T>(binary_float(p, a, b)));
    } else if constexpr (std::is_same_v<T, bool>) {
      const bool a = load<bool>(o[0], call, in[0]), b = load<bool>(o[1], call, in[1]);
      bool y = false;
      switch (p.op) {
        case MathOp::kAdd:
          y = a || (p.ia != 0 && b);
          break;
        case MathOp::kMul:
        case MathOp::kBitAnd:
        case MathOp::kMinimum:
          y = a && b;
          break;
        case MathOp::kBitOr:
        case MathOp::kMaximum:
          y = a || b;
          break;
        case MathOp::kBitXor:
          y = a != b;
          break;
        default:
          y = static_cast<bool>(binary_int(p, a, b, ok));
          break;
      }
      store<bool>(call, i, y);
    } else {
      const int64_t y =
          binary_int(p, load<int64_t>(o[0], call, in[0]), load<int64_t>(o[1], call, in[1]), ok);
      store<T>(call, i, static_cast<T>(y));
    }
  });
  if (!ok) return op_error(call, StatusCode::kInvalidArgument, "integer division by zero");
  return ok_status();
}

template <typename T>
Status run_typed(const MathParams& p, const KernelCall& call) {
  switch (p.op) {
    case MathOp::kIsnan:
    case MathOp::kIsinf:
      run_isnan_isinf(p, call);
      return ok_status();
    case MathOp::kLogicalAnd:
    case MathOp::kLogicalOr:
    case MathOp::kLogicalXor:
      run_logical<T>(p, call);
      return ok_status();
    case MathOp::kClamp:
      run_clamp<T>(p, call);
      return ok_status();
    default:
      break;
  }
  if (p.n == 1) {
    run_unary<T>(p, call);
    return ok_status();
  }
  return run_binary<T>(p, call);
}

}  // namespace

Status ref_math(const MathParams& p, const KernelCall& call) {
  Status s = ok_status();
  visit_dtype(p.compute, [&](auto tag) { s = run_typed<decltype(tag)>(p, call); });
  return s;
}

void register_math_ref(KernelRegistry& registry) {
  registry.add({
      math_unary<MathOp::kAcos>("aten::acos"),
      math_unary<MathOp::kAcosh>("aten::acosh"),
      math_unary<MathOp::kAsin>("aten::asin"),
      math_unary<MathOp::kAsinh>("aten::asinh"),
      math_unary<MathOp::kAtan>("aten::atan"),
      math_unary<MathOp::kAtanh>("aten::atanh"),
      math_unary<MathOp::kCosh>("aten::cosh"),
      math_unary<MathOp::kSinh>("aten::sinh"),
      math_unary<MathOp::kTan>("aten::tan"),
      math_unary<MathOp::kExpm1>("aten::expm1"),
      math_unary<MathOp::kLog1p>("aten::log1p"),
      math_unary<MathOp::kLog2>("aten::log2"),
      math_unary<MathOp::kLog10>("aten::log10"),
      math_unary<MathOp::kReciprocal>("aten::reciprocal"),
      math_unary<MathOp::kCeil>("aten::ceil"),
      math_unary<MathOp::kFloor>("aten::floor"),
      math_unary<MathOp::kRound>("aten::round"),
      math_unary<MathOp::kRoundDecimals>("aten::round.decimals"),
      math_unary<MathOp::kTrunc>("aten::trunc"),
      math_unary<MathOp::kSign>("aten::sign"),
      math_unary<MathOp::kIsnan>("aten::isnan"),
      math_unary<MathOp::kIsinf>("aten::isinf"),
      math_unary<MathOp::kLeakyRelu>("aten::leaky_relu"),
      math_unary<MathOp::kElu>("aten::elu"),
  });
}
}  // namespace tir::kernels
