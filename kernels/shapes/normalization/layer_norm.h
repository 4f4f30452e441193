// Shared shape inference and validation for layer norm.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// x viewed as [rows, cols] with cols = prod(normalized_shape); y = (x - mean) * rstd *
/// weight + bias per row, rstd = 1 / sqrt(biased var + eps).
struct LayerNormParams {
  DType dtype = DType::kFloat32;  // of input, weight, bias and every output: float32 or float64
  int64_t rows = 0, cols = 0;
  double eps = 1e-5;
  int input = -1, weight = -1, bias = -1;  // KernelCall::inputs indices; -1 absent
  bool stats = false;                      // native_layer_norm: also write mean and rstd
  bool rms = false;                        // rms_norm: no mean, rstd = 1 / sqrt(mean(x^2) + eps)
};

/// layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable) -> out.
Result<LayerNormParams> layer_norm_prepare(const KernelCall& call, PrepareInfo* out_info);
/// native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (out, mean, rstd);
/// mean and rstd have the input's shape with the normalized dims set to 1.
Result<LayerNormParams> layer_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info);
/// rms_norm(input, normalized_shape, weight?, eps?) -> out: y = x * rstd * weight,
/// rstd = 1 / sqrt(mean(x^2) + eps); eps None is the input dtype's epsilon (torch's default).
Result<LayerNormParams> rms_norm_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
