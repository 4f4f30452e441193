// Shared shape inference for Tensor.unfold(dimension, size, step): the windows of `size`
// elements every `step` along `dimension`, as a new last dim ([.., n, ..] -> [.., (n - size) /
// step + 1, .., size]); torch.stft's decomposition frames its signal so. A copy here (torch
// returns a strided view); any dtype.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct UnfoldParams {
  int input = -1;
  size_t elem_size = 0;
  int rank = 0;  // the output's
  std::array<int64_t, kMaxRank> out_sizes{};
  std::array<int64_t, kMaxRank> in_strides{};  // input element stride of each output dim
};

Result<UnfoldParams> unfold_prepare(const KernelCall& call, PrepareInfo* info);

}  // namespace tir::kernels
