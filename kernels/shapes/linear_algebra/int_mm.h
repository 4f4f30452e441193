// Shared validation and shape inference of the integer matrix products:
//   aten::_int_mm(self [M, K] int8 or uint8, mat2 [K, N] int8) -> [M, N] int32
//   tir::int_mm_weight(self [M, K] int8 or uint8, weight [N, K] int8) -> [M, N] int32,
//       self @ weight^T: what runtime/passes/int_mm_rewrite.h makes of _int_mm(x, t(w)) when w
//       is a weight, so that the kernel sees w's bytes at prepare and can pack them once.
// Sums are exact int32 (torch's CPU _int_mm accumulates in int32). Either operand may be
// strided. The reference (kernels/reference/linear_algebra/int_mm.cc) is a plain loop; the CPU
// kernel (kernels/cpu/int8/int_mm.cc) runs oneDNN.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct IntMmParams {
  int64_t m = 0, n = 0, k = 0;
  bool unsigned_a = false;  // self is uint8 (else int8)
  /// Element strides of A [M, K] and of B [K, N] (for tir::int_mm_weight, of weight^T).
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0;
};

/// Validates the call (either op) and sets outputs[0] (int32 [M, N], contiguous).
Result<IntMmParams> int_mm_prepare(const KernelCall& call);

}  // namespace tir::kernels
