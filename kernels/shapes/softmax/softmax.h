// Shared shape inference and validation for (log-)softmax.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// Softmax over `dim` of x viewed as [outer, n, inner].
struct SoftmaxParams {
  int64_t outer = 0, n = 0, inner = 0;
  bool log = false;
  int input = -1;
};

/// softmax.int / log_softmax.int (self, dim, dtype?) with dtype None or self's;
/// _softmax / _log_softmax (self, dim, half_to_float=False). self float32 or float64 (the
/// registry picks a kernel by dtype: only the reference kernels take float64).
template <bool Log>
Result<SoftmaxParams> softmax_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
