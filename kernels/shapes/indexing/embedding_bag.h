// Shared shape inference for aten::_embedding_bag and aten::_embedding_bag_forward_only:
// sums, means or maxima of weight rows over bags of a 1-D index list cut at offsets.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

enum class BagMode : uint8_t { kSum = 0, kMean = 1, kMax = 2 };

struct EmbeddingBagParams {
  int weight = -1, indices = -1, offsets = -1, per_sample = -1;
  int64_t rows = 0, dim = 0, count = 0, offset_count = 0, bags = 0;
  DType index_dtype = DType::kInt64;
  BagMode mode = BagMode::kSum;
  bool include_last_offset = false;
  int64_t padding_idx = -1;  // < 0: none
};

/// _embedding_bag(weight [R, D], indices [L], offsets [B (+1)], scale_grad_by_freq, mode,
/// sparse, per_sample_weights? [L] (sum only), include_last_offset, padding_idx) ->
/// (out [B, D], offset2bag, bag_size [B], max_indices), the last three in the index dtype
/// with the values torch's CPU kernel gives them (offset2bag is empty for a plain sum;
/// max_indices is [B, D] for max, the bag sizes for mean, zeros for sum). Index and offset
/// values are checked at run time.
Result<EmbeddingBagParams> embedding_bag_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
