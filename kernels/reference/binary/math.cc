// Reference element-wise binary math (kernels/shapes/binary/math.h). Floating-point ops run in
// double and round once to the output dtype; integer ops stay exact in int64 with ATen's
// wrap-around, floor-division and remainder-sign rules.
#include "kernels/reference/binary/math.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/log_add_exp.h"

namespace tir::kernels {
namespace {

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

// The binary functions beyond arithmetic, in floating point.
double binary_float_more(BinaryKind op, double a, double b) {
  switch (op) {
    case BinaryKind::kFmax:
      return std::fmax(a, b);
    case BinaryKind::kFmin:
      return std::fmin(a, b);
    case BinaryKind::kHypot:
      return std::hypot(a, b);
    case BinaryKind::kLogaddexp:
      return log_add_exp(a, b);
    case BinaryKind::kLogaddexp2: {
      if (std::isinf(a) && a == b) return a;
      const double m = std::max(a, b);
      return m + std::log1p(std::exp2(-std::abs(a - b))) / std::log(2.0);
    }
    case BinaryKind::kCopysign:
      return std::copysign(a, b);
    case BinaryKind::kXlogy:
      if (std::isnan(b)) return b;
      return a == 0 ? 0.0 : a * std::log(b);
    case BinaryKind::kHeaviside:
      return a == 0 ? b : static_cast<double>(a > 0);
    default:
      return 0;
  }
}

double binary_float(const MathBinaryParams& p, double a, double b) {
  switch (p.op) {
    case BinaryKind::kAdd:
      return a + p.alpha * b;
    case BinaryKind::kSub:
      return a - p.alpha * b;
    case BinaryKind::kMul:
      return a * b;
    case BinaryKind::kFmod:
      return std::fmod(a, b);
    case BinaryKind::kRemainder: {
      const double r = std::fmod(a, b);
      return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
    }
    case BinaryKind::kMaximum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::max(a, b);
    case BinaryKind::kMinimum:
      return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::min(a, b);
    case BinaryKind::kDivTrunc:
      return std::trunc(a / b);
    case BinaryKind::kDivFloor: {
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
    case BinaryKind::kDiv:
      return a / b;
    case BinaryKind::kAtan2:
      return std::atan2(a, b);
    case BinaryKind::kPow:
      return std::pow(a, b);
    default:
      return binary_float_more(p.op, a, b);
  }
}

// Integer binary math; `ok` false for integer division by zero (the caller reports it).
int64_t binary_int(const MathBinaryParams& p, int64_t a, int64_t b, bool& ok) {
  switch (p.op) {
    case BinaryKind::kAdd:
      return wrap_add(a, wrap_mul(p.int_alpha, b));
    case BinaryKind::kSub:
      return wrap_add(a, -wrap_mul(p.int_alpha, b));
    case BinaryKind::kMul:
      return wrap_mul(a, b);
    case BinaryKind::kMaximum:
    case BinaryKind::kFmax:
      return std::max(a, b);
    case BinaryKind::kMinimum:
    case BinaryKind::kFmin:
      return std::min(a, b);
    case BinaryKind::kHeaviside:
      return a == 0 ? b : (a > 0 ? 1 : 0);
    case BinaryKind::kBitAnd:
      return a & b;
    case BinaryKind::kBitOr:
      return a | b;
    case BinaryKind::kBitXor:
      return a ^ b;
    case BinaryKind::kPow:
      return int_pow(a, b);
    case BinaryKind::kFmod:
    case BinaryKind::kRemainder:
    case BinaryKind::kDivTrunc:
    case BinaryKind::kDivFloor: {
      if (b == 0) {
        ok = false;
        return 0;
      }
      if (b == -1) {  // avoids INT64_MIN / -1
        return p.op == BinaryKind::kFmod || p.op == BinaryKind::kRemainder
                   ? 0
                   : static_cast<int64_t>(0 - static_cast<uint64_t>(a));
      }
      const int64_t q = a / b, r = a % b;
      if (p.op == BinaryKind::kFmod) return r;
      if (p.op == BinaryKind::kDivTrunc) return q;
      const bool adjust = r != 0 && ((r < 0) != (b < 0));
      if (p.op == BinaryKind::kRemainder) return adjust ? r + b : r;
      return adjust ? q - 1 : q;
    }
    default:
      return 0;
  }
}

// logical and/or/xor: a bool output.
template <typename T>
void run_logical(const MathBinaryParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    const bool a = operand_load<T>(o[0], call, in[0]) != T{},
               b = operand_load<T>(o[1], call, in[1]) != T{};
    store_output<bool>(call, i,
                       p.op == BinaryKind::kLogicalAnd  ? a && b
                       : p.op == BinaryKind::kLogicalOr ? a || b
                                                        : a != b);
  });
}

// clamp(x, min, max), either bound optional; a NaN operand wins.
template <typename T>
void run_clamp(const MathBinaryParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  constexpr bool kFloat = std::is_floating_point_v<T>;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    T x = operand_load<T>(o[0], call, in[0]);
    if constexpr (kFloat) {
      if (std::isnan(x)) return store_output<T>(call, i, x);
    }
    if (p.present[1]) {
      const T lo = operand_load<T>(o[1], call, in[1]);
      if constexpr (kFloat) {
        if (std::isnan(lo)) return store_output<T>(call, i, lo);
      }
      x = x < lo ? lo : x;
    }
    if (p.present[2]) {
      const T hi = operand_load<T>(o[2], call, in[2]);
      if constexpr (kFloat) {
        if (std::isnan(hi)) return store_output<T>(call, i, hi);
      }
      x = x > hi ? hi : x;
    }
    store_output<T>(call, i, x);
  });
}

// addcmul, addcdiv and lerp: floats in double and rounded once; addcmul on integers exact
// with int64 wrap-around (bool: logic).
template <typename T>
void run_ternary(const MathBinaryParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (std::is_floating_point_v<T>) {
      const double a = operand_load<T>(o[0], call, in[0]), b = operand_load<T>(o[1], call, in[1]),
                   c = operand_load<T>(o[2], call, in[2]);
      double y = 0;
      if (p.op == BinaryKind::kAddcmul) {
        y = a + p.alpha * b * c;
      } else if (p.op == BinaryKind::kAddcdiv) {
        y = a + p.alpha * (b / c);
      } else {  // torch's lerp: exact at weight 0 and 1
        y = std::abs(c) < 0.5 ? a + c * (b - a) : b - (b - a) * (1 - c);
      }
      store_output<T>(call, i, static_cast<T>(y));
    } else if constexpr (std::is_same_v<T, bool>) {
      store_output<bool>(call, i,
                         operand_load<bool>(o[0], call, in[0]) ||
                             (p.int_alpha != 0 && operand_load<bool>(o[1], call, in[1]) &&
                              operand_load<bool>(o[2], call, in[2])));
    } else {
      const int64_t prod = wrap_mul(operand_load<int64_t>(o[1], call, in[1]),
                                    operand_load<int64_t>(o[2], call, in[2]));
      store_output<T>(call, i,
                      static_cast<T>(wrap_add(operand_load<int64_t>(o[0], call, in[0]),
                                              wrap_mul(p.int_alpha, prod))));
    }
  });
}

// Binary math: floats in double (binary_float), bools as logic, integers exact in int64
// (binary_int); fails on an integer division by zero.
template <typename T>
Status run_binary(const MathBinaryParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  constexpr bool kFloat = std::is_floating_point_v<T>;
  bool ok = true;
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    if constexpr (kFloat) {
      double a = operand_load<T>(o[0], call, in[0]), b = operand_load<T>(o[1], call, in[1]);
      store_output<T>(call, i, static_cast<T>(binary_float(p, a, b)));
    } else if constexpr (std::is_same_v<T, bool>) {
      const bool a = operand_load<bool>(o[0], call, in[0]),
                 b = operand_load<bool>(o[1], call, in[1]);
      bool y = false;
      switch (p.op) {
        case BinaryKind::kAdd:
          y = a || (p.int_alpha != 0 && b);
          break;
        case BinaryKind::kMul:
        case BinaryKind::kBitAnd:
        case BinaryKind::kMinimum:
          y = a && b;
          break;
        case BinaryKind::kBitOr:
        case BinaryKind::kMaximum:
          y = a || b;
          break;
        case BinaryKind::kBitXor:
          y = a != b;
          break;
        default:
          y = static_cast<bool>(binary_int(p, a, b, ok));
          break;
      }
      store_output<bool>(call, i, y);
    } else {
      const int64_t y = binary_int(p, operand_load<int64_t>(o[0], call, in[0]),
                                   operand_load<int64_t>(o[1], call, in[1]), ok);
      store_output<T>(call, i, static_cast<T>(y));
    }
  });
  if (!ok) return op_error(call, StatusCode::kInvalidArgument, "integer division by zero");
  return ok_status();
}

template <typename T>
Status run_typed(const MathBinaryParams& p, const KernelCall& call) {
  switch (p.op) {
    case BinaryKind::kLogicalAnd:
    case BinaryKind::kLogicalOr:
    case BinaryKind::kLogicalXor:
      run_logical<T>(p, call);
      return ok_status();
    case BinaryKind::kClamp:
      run_clamp<T>(p, call);
      return ok_status();
    case BinaryKind::kAddcmul:
    case BinaryKind::kAddcdiv:
    case BinaryKind::kLerp:
      run_ternary<T>(p, call);
      return ok_status();
    default:
      return run_binary<T>(p, call);
  }
}

}  // namespace

Status ref_math_binary(const MathBinaryParams& p, const KernelCall& call) {
  Status s = ok_status();
  visit_dtype(p.compute, [&](auto tag) { s = run_typed<decltype(tag)>(p, call); });
  return s;
}

}  // namespace tir::kernels
