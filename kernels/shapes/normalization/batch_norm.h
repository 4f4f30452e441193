// Shared shape inference and validation for inference-mode batch norm.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c] over x viewed as
/// [n, c, inner]. weight/bias may be absent (-1).
struct BatchNormParams {
  DType dtype = DType::kFloat32;  // of input, parameters and output: float32 or float64
  int64_t n = 0, c = 0, inner = 0;
  double eps = 1e-5;
  int input = -1, weight = -1, bias = -1, mean = -1, var = -1;  // KernelCall::inputs indices
};

/// batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps,
/// cudnn_enabled) with training=false: over the running statistics.
Result<BatchNormParams> norm_prepare_batch_norm(const KernelCall& call, PrepareInfo* out_info);
/// batch_norm's training argument.
Result<bool> batch_norm_training(const KernelCall& call);
/// _native_batch_norm_legit_no_training(input, weight?, bias?, running_mean, running_var,
/// momentum, eps) -> (out, save_mean [0], save_invstd [0]) as torch returns on CPU.
Result<BatchNormParams> norm_prepare_native_no_training(const KernelCall& call,
                                                        PrepareInfo* out_info);
/// _native_batch_norm_legit(input, weight?, bias?, running_mean, running_var, training,
/// momentum, eps): training=False only (it would update the running statistics in place),
/// then the same as _native_batch_norm_legit_no_training.
Result<BatchNormParams> norm_prepare_native_legit(const KernelCall& call, PrepareInfo* out_info);

/// Batch norm over the batch's own statistics (instance norm, BatchNorm without running
/// stats): per channel c, mean and biased variance over N and the inner dims.
struct BatchStatsParams {
  int64_t n = 0, c = 0, inner = 0;
  int64_t affine_channels = 0;  // weight/bias index of channel c: c % affine_channels
  double eps = 1e-5;
  int input = -1, weight = -1, bias = -1;
};
/// _native_batch_norm_legit.no_stats(input, weight?, bias?, training, momentum, eps) ->
/// (out, save_mean [C], save_invstd [C]); training must be True (torch refuses False).
/// batch_norm(...) with training=True and no running statistics: over the batch's own
/// (BatchStatsParams). With running statistics torch would also update them in place, which a
/// program that is not a training step cannot want: refused.
Result<BatchStatsParams> norm_prepare_batch_norm_training(const KernelCall& call,
                                                          PrepareInfo* out_info);
Result<BatchStatsParams> norm_prepare_native_no_stats(const KernelCall& call,
                                                      PrepareInfo* out_info);
/// instance_norm(input, weight?, bias?, running_mean?, running_var?, use_input_stats,
/// momentum, eps, cudnn_enabled) with use_input_stats: statistics per sample and channel
/// (the training IR keeps it; the core IR turns it into the .no_stats overload).
Result<BatchStatsParams> norm_prepare_instance_norm(const KernelCall& call, PrepareInfo* out_info);
/// _native_batch_norm_legit_functional(input, weight?, bias?, running_mean, running_var,
/// training, momentum, eps) -> (out, save_mean [0], save_invstd [0], running_mean,
/// running_var): training=False only, where the running statistics come back unchanged.
Result<BatchNormParams> norm_prepare_native_functional(const KernelCall& call,
                                                       PrepareInfo* out_info);

/// _native_batch_norm_legit_functional with training=True (what the core IR makes of a
/// training-mode BatchNorm): the batch's own statistics, save_mean and save_invstd [C], and
/// the new running statistics (1 - momentum) * old + momentum * batch (the variance unbiased),
/// which the program then writes to its buffers or inputs.
struct BatchTrainParams {
  BatchStatsParams stats;
  int mean = -1, var = -1;  // running_mean, running_var inputs
  double momentum = 0.1;
};
Result<BatchTrainParams> norm_prepare_native_functional_training(const KernelCall& call,
                                                                 PrepareInfo* out_info);
/// Whether a _native_batch_norm_legit_functional call has training=True.
Result<bool> native_functional_training(const KernelCall& call);

}  // namespace tir::kernels
