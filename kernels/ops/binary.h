// The binary family's kind enum and scalar formula for the arithmetic ops that take an `alpha`
// (add, sub, mul, div), written once: the reference kernels (in double or int64) and the CUDA
// launcher (kernels/cuda/elementwise.cu, in float) call it; the Eigen kernels
// (kernels/cpu/eltwise_eigen.cc) apply the same expressions to whole rows. Plain C++, so nvcc
// compiles it for the device too.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TIR_HOST_DEVICE __host__ __device__
#else
#define TIR_HOST_DEVICE
#endif

namespace tir::kernels::ops {

enum class BinaryKind : uint8_t { kAdd, kSub, kMul, kDiv };

/// a (op) alpha * b for add and sub; a * b and a / b otherwise (alpha unused).
template <typename T>
TIR_HOST_DEVICE inline T binary_apply(BinaryKind op, T a, T b, T alpha) {
  switch (op) {
    case BinaryKind::kAdd:
      return a + alpha * b;
    case BinaryKind::kSub:
      return a - alpha * b;
    case BinaryKind::kMul:
      return a * b;
    case BinaryKind::kDiv:
      return a / b;
  }
  return a;
}

}  // namespace tir::kernels::ops
