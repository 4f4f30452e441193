// Shared shape inference and validation for aten::mean.dim.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct ReduceParams {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};  // input sizes
  std::array<bool, kMaxRank> reduced{};   // per input dim
  int64_t out_numel = 0, reduce_numel = 1;
  /// When the reduced dims form one contiguous block: input = [outer, reduce_numel, inner].
  bool blocked = false;
  int64_t outer = 1, inner = 1;
  int input = -1;
};

/// mean.dim(self, dim?, keepdim=False, *, dtype=None); empty or None dim = all dims.
Result<ReduceParams> reduce_prepare_mean_dim(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
