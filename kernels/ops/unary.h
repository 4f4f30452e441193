// The unary family's kind enum and scalar formulas, written once: the reference kernels (in
// double), the Eigen kernels (kernels/cpu/eigen/act_eigen.cc), the fused epilogue of GEMMs and
// convolutions (kernels/epilogue.cc, in double; oneDNN post-ops) and the CUDA launcher
// (kernels/cuda/elementwise.cu, in float) all name a map by its UnaryKind and call these. Plain
// C++ with <cmath> only, so nvcc compiles it for the device too. NaN propagates and the sign of
// zero is torch's (relu(-0.0) is -0.0).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#if defined(__CUDACC__)
#define TIR_HOST_DEVICE __host__ __device__
#else
#define TIR_HOST_DEVICE
#endif

namespace tir::kernels::ops {

/// Every element-wise map of one tensor. The first eight are the activations a GEMM or
/// convolution may apply as its fused epilogue (fusable_as_epilogue). The last four map a
/// tensor with scalar arguments `a` and `b` (the catalogue lists them in the binary family:
/// pow.Tensor_Scalar, rsub.Scalar, sub.Scalar, div.Scalar).
enum class UnaryKind : uint8_t {
  // activations, fusable as an epilogue
  kRelu,
  kGeluErf,   // 0.5 x (1 + erf(x / sqrt 2))
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kHardswish,
  kHardsigmoid,
  kSilu,
  kSigmoid,
  kTanh,
  // activations with parameters
  kHardtanh,  // clamp to [a, b]
  kRelu6,
  kLeakyRelu,   // negative_slope a
  kElu,         // alpha a, scale b, input_scale c
  kSoftplus,    // log(1 + exp(beta a x)) / a; x where a x > threshold b
  kMish,        // x tanh(softplus(x))
  kLogSigmoid,  // -softplus(-x)
  kThreshold,   // x > threshold a ? x : value b
  kHardshrink,  // |x| > lambda a ? x : 0
  kSoftshrink,  // x - a past +a, x + a past -a, 0 between
  // math; integer inputs give float32 (torch's int-to-float promotion)
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kLog2,
  kLog10,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kErf,
  kErfc,
  kExp2,
  kLogit,     // log(x / (1 - x)), x clamped to [eps a, 1 - a] when eps is given (c != 0)
  kSinc,      // sin(pi x) / (pi x), 1 at 0
  kFrac,      // x - trunc(x)
  kNanToNum,  // NaN -> a, +inf -> b, -inf -> c
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  // math that keeps integer dtypes
  kNeg,
  kAbs,
  kSign,
  kCeil,
  kFloor,
  kRound,
  kRoundDecimals,  // round(x * 10^d) / 10^d
  kTrunc,
  // predicates -> bool
  kIsnan,
  kIsinf,
  kIsfinite,
  kSignbit,
  // a tensor with scalars
  kPowScalar,  // x ** a
  kRsub,       // a - b * x
  kSubScalar,  // x - b * a
  kDivScalar,  // x / a
};

/// The activations every GEMM and convolution kernel that takes an epilogue
/// (KernelCall::epilogue, OpCaps::epilogue) applies: kernels/epilogue.cc, oneDNN post-ops.
constexpr bool fusable_as_epilogue(UnaryKind k) {
  switch (k) {
    case UnaryKind::kRelu:
    case UnaryKind::kGeluErf:
    case UnaryKind::kGeluTanh:
    case UnaryKind::kHardswish:
    case UnaryKind::kHardsigmoid:
    case UnaryKind::kSilu:
    case UnaryKind::kSigmoid:
    case UnaryKind::kTanh:
      return true;
    default:
      return false;
  }
}

template <typename T>
TIR_HOST_DEVICE inline T relu(T x) {
  return x < T(0) ? T(0) : x;
}

/// min(max(x, lo), hi) with NaN passed through (std::clamp's comparisons).
template <typename T>
TIR_HOST_DEVICE inline T clamp_nan(T x, T lo, T hi) {
  return x < lo ? lo : (hi < x ? hi : x);
}

template <typename T>
TIR_HOST_DEVICE inline T relu6(T x) {
  return clamp_nan(x, T(0), T(6));
}

/// 0.5 x (1 + erf(x / sqrt 2))
template <typename T>
TIR_HOST_DEVICE inline T gelu_erf(T x) {
  return T(0.5) * x * (T(1) + std::erf(x / std::numbers::sqrt2_v<T>));
}

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
template <typename T>
TIR_HOST_DEVICE inline T gelu_tanh(T x) {
  const T k = std::sqrt(T(2) / std::numbers::pi_v<T>);
  return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
}

template <typename T>
TIR_HOST_DEVICE inline T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

template <typename T>
TIR_HOST_DEVICE inline T silu(T x) {
  return x / (T(1) + std::exp(-x));
}

template <typename T>
TIR_HOST_DEVICE inline T hardsigmoid(T x) {
  return clamp_nan(x + T(3), T(0), T(6)) / T(6);
}

template <typename T>
TIR_HOST_DEVICE inline T hardswish(T x) {
  return x * clamp_nan(x + T(3), T(0), T(6)) / T(6);
}

}  // namespace tir::kernels::ops
