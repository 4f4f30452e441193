// Shared shape inference and validation for clamp, any.dim and diff.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// clamp(self, min?, max?) on float32; a None bound is +-infinity.
struct ClampParams {
  double lo = 0, hi = 0;
  int64_t numel = 0;
  int input = -1;
};
Result<ClampParams> misc_prepare_clamp(const KernelCall& call, PrepareInfo* out_info);

/// any.dim(self, dim, keepdim) -> bool, over self viewed as [outer, n, inner].
struct AnyParams {
  int64_t outer = 0, n = 0, inner = 0;
  DType in = DType::kBool;
  int input = -1;
};
Result<AnyParams> misc_prepare_any_dim(const KernelCall& call, PrepareInfo* out_info);

/// diff(self, n=1, dim=-1, prepend?, append?) with n == 1, float32 or int64: the first
/// difference along dim of cat([prepend, self, append], dim).
struct DiffParams {
  int64_t outer = 0, inner = 0;
  int64_t pre_n = 0, self_n = 0, post_n = 0;  // lengths along dim
  int pre = -1, self = -1, post = -1;         // input indices (-1: absent)
  DType dtype = DType::kFloat32;
};
Result<DiffParams> misc_prepare_diff(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
