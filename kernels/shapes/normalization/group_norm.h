// Shared shape inference for float32 group normalisation and weight normalisation.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct GroupNormParams {
  DType dtype = DType::kFloat32;  // of input, weight, bias and outputs: float32 or float64
  int input = -1, weight = -1, bias = -1;
  int64_t n = 0, c = 0, hw = 0, groups = 1;
  double eps = 1e-5;
  bool stats = false;  // native_group_norm: also writes mean and rstd [N, groups]
};
/// native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out, mean, rstd).
Result<GroupNormParams> group_norm_prepare_native(const KernelCall& call, PrepareInfo* out_info);
/// group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled).
Result<GroupNormParams> group_norm_prepare(const KernelCall& call, PrepareInfo* out_info);

/// _weight_norm(v, g, dim=0): v * g / ||v||, the norm over every dim but `dim` (dim -1:
/// over all of v).
struct WeightNormParams {
  int v = -1, g = -1;
  int64_t outer = 1, n = 1, inner = 1;  // v as [outer, n, inner], n along dim
};
Result<WeightNormParams> weight_norm_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
