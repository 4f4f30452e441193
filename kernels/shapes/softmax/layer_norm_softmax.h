// Shared shape inference and validation for layer norm and (log-)softmax.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// x viewed as [rows, cols] with cols = prod(normalized_shape); y = (x - mean) * rstd *
/// weight + bias per row, rstd = 1 / sqrt(biased var + eps).
struct LayerNormParams {
  int64_t rows = 0, cols = 0;
  double eps = 1e-5;
  int input = -1, weight = -1, bias = -1;  // KernelCall::inputs indices; -1 absent
  bool stats = false;                      // native_layer_norm: also write mean and rstd
};

/// layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable) -> out.
Result<LayerNormParams> layer_norm_prepare(const KernelCall& call, PrepareInfo* out_info);
/// native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (out, mean, rstd);
/// mean and rstd have the input's shape with the normalized dims set to 1.
Result<LayerNormParams> layer_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info);

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
