// Optimized float32 elementwise math on Eigen arrays (vectorised tanh/erf/exp), split
// into OpenMP chunks: relu(_), sin, cos and every act op, with square/sqrt/reciprocal fast paths
// for pow.Tensor_Scalar. int64 inputs run the reference loops.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <numbers>
#include <unsupported/Eigen/SpecialFunctions>

#include "kernels/cpu/eigen/eigen_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/unary/activation.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using CArr = CArrF;
constexpr int64_t kActivationGrain = 1 << 14;

// relu, sin and cos (UnaryParams) in chunks of their own size.
constexpr int64_t kFloatGrain = 1 << 15;

template <typename F>
void unary_float(const UnaryParams& p, const KernelCall& call, F f) {
  eigen_unary(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(),
              p.numel, kFloatGrain, f);
}

void relu_opt(const UnaryParams& p, const KernelCall& call, void*) {
  unary_float(p, call, [](const CArr& x) { return (x < 0.f).select(0.f, x); });  // keeps NaN
}
void sin_opt(const UnaryParams& p, const KernelCall& call, void*) {
  unary_float(p, call, [](const CArr& x) { return x.sin(); });
}
void cos_opt(const UnaryParams& p, const KernelCall& call, void*) {
  unary_float(p, call, [](const CArr& x) { return x.cos(); });
}

template <typename F>
void unary(const ActParams& p, const KernelCall& call, F f) {
  eigen_unary(call.inputs[p.input].data_as<const float>(), call.outputs[0].data_as<float>(),
              p.numel, kActivationGrain, f);
}

// gelu (erf and tanh forms), tanh, sigmoid and silu.
void act_smooth(const ActParams& p, const KernelCall& call) {
  switch (p.op) {
    case UnaryKind::kGeluErf:
      unary(p, call, [](const CArr& x) {
        return 0.5f * x * (1.0f + (x * static_cast<float>(1.0 / std::numbers::sqrt2)).erf());
      });
      return;
    case UnaryKind::kGeluTanh: {
      const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
      unary(p, call, [k](const CArr& x) {
        return 0.5f * x * (1.0f + (k * (x + 0.044715f * x.cube())).tanh());
      });
      return;
    }
    case UnaryKind::kTanh:
      unary(p, call, [](const CArr& x) { return x.tanh(); });
      return;
    case UnaryKind::kSigmoid:
      unary(p, call, [](const CArr& x) { return (1.0f + (-x).exp()).inverse(); });
      return;
    case UnaryKind::kSilu:
      unary(p, call, [](const CArr& x) { return x / (1.0f + (-x).exp()); });
      return;
    default:  // other groups: act_opt
      return;
  }
}

/// y = f(x) on chunks; where `wrong(x)` holds (a rare range), `fix(x)` instead.
template <typename F, typename W, typename G>
void unary_fixed(const ActParams& p, const KernelCall& call, F f, W wrong, G fix) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  parallel_chunks(p.numel, kActivationGrain, [&](int64_t b, int64_t e) {
    const CArr xs(x + b, e - b);
    ArrF ys(y + b, e - b);
    ys = f(xs);
    const auto w = wrong(xs);
    if (w.any()) ys = w.select(fix(xs), ys);
  });
}

// exp as ATen's: Eigen's clamps its argument at about -88.4, so exp(-inf) and exp(-100) came
// out near 1e-38 where ATen gives 0 and subnormals (and log(sum(exp(-inf))), the core IR's
// logsumexp of a masked row, gave -87 instead of -inf). Below -87, exp(x + 64) * exp(-64).
void exp_opt(const ActParams& p, const KernelCall& call) {
  const float exp_minus_64 = std::exp(-64.0f);
  unary_fixed(
      p, call, [](const CArr& x) { return x.exp(); }, [](const CArr& x) { return x < -87.0f; },
      [&](const CArr& x) { return (x + 64.0f).exp() * exp_minus_64; });
}

// log as ATen's: Eigen's takes a subnormal argument for the smallest normal float (log gave
// -87.3 for exp(-91)). Subnormals are scaled by 2^64 first.
void log_opt(const ActParams& p, const KernelCall& call) {
  const float two_64 = std::ldexp(1.0f, 64), log_two_64 = 64.0f * std::numbers::ln2_v<float>;
  unary_fixed(
      p, call, [](const CArr& x) { return x.log(); },
      [](const CArr& x) { return x > 0.0f && x < std::numeric_limits<float>::min(); },
      [&](const CArr& x) { return (x * two_64).log() - log_two_64; });
}

// rsqrt, exp, neg, log, sqrt, abs and erf.
void act_math(const ActParams& p, const KernelCall& call) {
  switch (p.op) {
    case UnaryKind::kRsqrt:
      unary(p, call, [](const CArr& x) { return x.rsqrt(); });
      return;
    case UnaryKind::kExp:
      exp_opt(p, call);
      return;
    case UnaryKind::kNeg:
      unary(p, call, [](const CArr& x) { return -x; });
      return;
    case UnaryKind::kLog:
      log_opt(p, call);
      return;
    case UnaryKind::kSqrt:
      unary(p, call, [](const CArr& x) { return x.sqrt(); });
      return;
    case UnaryKind::kAbs:
      unary(p, call, [](const CArr& x) { return x.abs(); });
      return;
    case UnaryKind::kErf:
      unary(p, call, [](const CArr& x) { return x.erf(); });
      return;
    default:  // other groups: act_opt
      return;
  }
}

// pow.Tensor_Scalar: square, sqrt, reciprocal, rsqrt and identity fast paths for x ** a.
void act_pow_scalar(const ActParams& p, const KernelCall& call, float a) {
  if (a == 2.0f) {
    unary(p, call, [](const CArr& x) { return x.square(); });
  } else if (a == 0.5f) {
    unary(p, call, [](const CArr& x) { return x.sqrt(); });
  } else if (a == -1.0f) {
    unary(p, call, [](const CArr& x) { return x.inverse(); });
  } else if (a == -0.5f) {
    unary(p, call, [](const CArr& x) { return x.rsqrt(); });
  } else if (a == 1.0f) {
    unary(p, call, [](const CArr& x) { return x; });
  } else {
    unary(p, call, [a](const CArr& x) { return x.pow(a); });
  }
}

// hardswish, hardsigmoid, hardtanh (clamp to [a, b]) and relu6: piecewise linear.
void act_piecewise(const ActParams& p, const KernelCall& call, float a) {
  switch (p.op) {
    case UnaryKind::kHardswish:
      unary(p, call, [](const CArr& x) { return x * ((x + 3.0f).max(0.0f).min(6.0f) / 6.0f); });
      return;
    case UnaryKind::kHardsigmoid:
      unary(p, call, [](const CArr& x) { return (x + 3.0f).max(0.0f).min(6.0f) / 6.0f; });
      return;
    case UnaryKind::kHardtanh: {
      const float lo = a, hi = static_cast<float>(p.b.as_double());
      // select keeps NaN, as the reference does
      unary(p, call,
            [lo, hi](const CArr& x) { return (x < lo).select(lo, (x > hi).select(hi, x)); });
      return;
    }
    case UnaryKind::kRelu6:
      unary(p, call,
            [](const CArr& x) { return (x < 0.0f).select(0.0f, (x > 6.0f).select(6.0f, x)); });
      return;
    default:  // other groups: act_opt
      return;
  }
}

// rsub (a - b * x), sub.Scalar (x - b * a) and div.Scalar (x / a).
void act_scalar_arith(const ActParams& p, const KernelCall& call, float a) {
  switch (p.op) {
    case UnaryKind::kRsub: {
      const float b = static_cast<float>(p.b.as_double());
      unary(p, call, [a, b](const CArr& x) { return a - b * x; });
      return;
    }
    case UnaryKind::kSubScalar: {
      const float ba = static_cast<float>(p.b.as_double()) * a;
      unary(p, call, [ba](const CArr& x) { return x - ba; });
      return;
    }
    case UnaryKind::kDivScalar:
      unary(p, call, [a](const CArr& x) { return x / a; });
      return;
    default:  // other groups: act_opt
      return;
  }
}

void act_opt(const ActParams& p, const KernelCall& call, void* scratch) {
  if (p.dtype != DType::kFloat32 || p.out_dtype != DType::kFloat32) {
    ref_act(p, call, scratch);
    return;
  }
  const float a = static_cast<float>(p.a.as_double());
  switch (p.op) {
    case UnaryKind::kGeluErf:
    case UnaryKind::kGeluTanh:
    case UnaryKind::kTanh:
    case UnaryKind::kSigmoid:
    case UnaryKind::kSilu:
      act_smooth(p, call);
      return;
    case UnaryKind::kRsqrt:
    case UnaryKind::kExp:
    case UnaryKind::kNeg:
    case UnaryKind::kLog:
    case UnaryKind::kSqrt:
    case UnaryKind::kAbs:
    case UnaryKind::kErf:
      act_math(p, call);
      return;
    case UnaryKind::kPowScalar:
      act_pow_scalar(p, call, a);
      return;
    case UnaryKind::kHardswish:
    case UnaryKind::kHardsigmoid:
    case UnaryKind::kHardtanh:
    case UnaryKind::kRelu6:
      act_piecewise(p, call, a);
      return;
    case UnaryKind::kRsub:
    case UnaryKind::kSubScalar:
    case UnaryKind::kDivScalar:
      act_scalar_arith(p, call, a);
      return;
    default:  // no Eigen form
      ref_act(p, call, scratch);
      return;
  }
}

template <UnaryKind Op>
using ActOpt = FnKernel<ActParams, act_prepare<Op>, act_opt>;
using ReluOpt = FnKernel<UnaryParams, act_prepare_unary_float, relu_opt>;
using SinOpt = FnKernel<UnaryParams, act_prepare_unary_float, sin_opt>;
using CosOpt = FnKernel<UnaryParams, act_prepare_unary_float, cos_opt>;

}  // namespace

void register_act_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::relu", kCpu, kF32, kOpt, &make_kernel<ReluOpt>},
      {"aten::relu_", kCpu, kF32, kOpt, &make_kernel<ReluOpt>},
      {"aten::sin", kCpu, kF32, kOpt, &make_kernel<SinOpt>},
      {"aten::cos", kCpu, kF32, kOpt, &make_kernel<CosOpt>},
      {"aten::gelu", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kGeluErf>>},
      {"aten::tanh", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kTanh>>},
      {"aten::sigmoid", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kSigmoid>>},
      {"aten::silu", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kSilu>>},
      {"aten::rsqrt", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kRsqrt>>},
      {"aten::exp", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kExp>>},
      {"aten::pow.Tensor_Scalar", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kPowScalar>>},
      {"aten::hardswish", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardswish>>},
      {"aten::hardswish_", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardswish>>},
      {"aten::hardsigmoid", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardsigmoid>>},
      {"aten::hardsigmoid_", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardsigmoid>>},
      {"aten::hardtanh", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardtanh>>},
      {"aten::hardtanh_", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kHardtanh>>},
      {"aten::relu6", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kRelu6>>},
      {"aten::neg", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kNeg>>},
      {"aten::log", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kLog>>},
      {"aten::sqrt", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kSqrt>>},
      {"aten::abs", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kAbs>>},
      {"aten::erf", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kErf>>},
      {"aten::rsub.Scalar", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kRsub>>},
      {"aten::sub.Scalar", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kSubScalar>>},
      {"aten::div.Scalar", kCpu, kF32, kOpt, &make_kernel<ActOpt<UnaryKind::kDivScalar>>},
  });
}
}  // namespace tir::kernels
