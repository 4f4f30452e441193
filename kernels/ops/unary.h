// The unary family's scalar formulas, written once: the reference kernels (in double), the
// fused epilogue of GEMMs and convolutions (kernels/epilogue.cc, in double) and the CUDA
// launcher (kernels/cuda/elementwise.cu, in float) all call these. Plain C++ with <cmath>
// only, so nvcc compiles it for the device too. NaN propagates and the sign of zero is
// torch's (relu(-0.0) is -0.0).
#pragma once

#include <cmath>
#include <numbers>

#if defined(__CUDACC__)
#define TIR_HOST_DEVICE __host__ __device__
#else
#define TIR_HOST_DEVICE
#endif

namespace tir::kernels::ops {

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
