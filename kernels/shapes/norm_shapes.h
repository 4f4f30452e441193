// Shared shape inference and validation for inference-mode batch norm.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c] over x viewed as
/// [n, c, inner]. weight/bias may be absent (-1).
struct BatchNormParams {
  int64_t n = 0, c = 0, inner = 0;
  double eps = 1e-5;
  int input = -1, weight = -1, bias = -1, mean = -1, var = -1;  // KernelCall::inputs indices
};

/// batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps,
/// cudnn_enabled); only training=false with running stats.
Result<BatchNormParams> norm_prepare_batch_norm(const KernelCall& call, PrepareInfo* out_info);
/// _native_batch_norm_legit_no_training(input, weight?, bias?, running_mean, running_var,
/// momentum, eps) -> (out, save_mean [0], save_invstd [0]) as torch returns on CPU.
Result<BatchNormParams> norm_prepare_native_no_training(const KernelCall& call,
                                                        PrepareInfo* out_info);

}  // namespace tir::kernels
