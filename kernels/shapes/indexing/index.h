// Shared shape inference for gathering ops (index.Tensor, index_select, gather). They copy any
// dtype; their index tensors are int64 or int32, and bool or uint8 masks for index.Tensor: a
// mask known at prepare (a constant) becomes coordinates there; a mask computed at run time
// needs its count of true elements bound before the run (a trailing int argument, as
// nonzero's: runtime/exec/data_dependent.h), and `run` finds its coordinates into scratch.
// Index values are range-checked in `run`.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

/// Where one advanced index's values come from: an int tensor input or, for a
/// converted bool mask, `owned` (the coordinates of its nonzeros along one dim).
struct IndexSource {
  int input = -1;
  size_t elem_size = 8;  // 8: int64, 4: int32
  std::vector<int64_t> owned;
  /// A mask known only at run time: its input, and which of its dims' coordinates this source
  /// holds (at scratch + mask_dim * IndexParams::mask_capacity).
  int mask_input = -1;
  int mask_dim = 0;
  int self_dim = 0;  // the dim of self it indexes
  /// stride of this index in each output dim (0 where broadcast or not a batch dim)
  std::array<int64_t, kMaxRank> out_strides{};
};

/// index.Tensor: output dims are walked in order; the last `inner` elements of each
/// step are a contiguous run of self.
struct IndexParams {
  size_t elem_size = 0;
  int self_input = -1;
  int rank = 0;  // output dims before the contiguous tail
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> self_strides{};  // 0 for broadcast-index dims
  int64_t inner = 1;
  std::array<int64_t, kMaxRank> self_sizes{};  // for range checks
  std::array<int64_t, kMaxRank> self_dim_stride{};
  std::vector<IndexSource> sources;
  int64_t mask_count = -1;    // a run-time mask's true elements, bound before the run; -1: none
  int64_t mask_capacity = 0;  // coordinates room per mask dim in scratch
  /// index_put's run-time mask, whose count nothing binds: the walk's dim `mask_walk_dim`
  /// holds a placeholder size that `run` replaces by the count it finds.
  bool mask_dynamic = false;
  int mask_walk_dim = -1;
};

/// index_select(self, dim, index[N]) and gather(self, dim, index).
struct GatherParams {
  size_t elem_size = 0;
  int self_input = -1, index_input = -1;
  size_t index_elem_size = 8;
  int64_t outer = 1, dim_size = 1, inner = 1, n_index = 0;
  // gather only: index shape / strides and self strides
  int rank = 0;
  int dim = 0;
  std::array<int64_t, kMaxRank> index_sizes{};
  std::array<int64_t, kMaxRank> self_strides{};
};

/// Index value `i` of an int64 (elem_size 8) or int32 index tensor's bytes.
inline int64_t index_load(const void* base, size_t elem_size, int64_t i) {
  return elem_size == 8 ? static_cast<const int64_t*>(base)[i]
                        : static_cast<const int32_t*>(base)[i];
}

Result<IndexParams> index_prepare_index(const KernelCall& call, PrepareInfo* out_info);
/// index_put's walk: as index.Tensor's, and a run-time mask needs no bound count
/// (IndexParams::mask_dynamic).
Result<IndexParams> index_prepare_put_walk(const KernelCall& call, PrepareInfo* out_info);
/// The coordinates of a run-time mask's true elements, written to `scratch` (mask_capacity
/// per mask dim); returns how many it found, an error when a bound count differs.
Result<int64_t> index_mask_coordinates(const IndexParams& p, const KernelCall& call, void* scratch);
Result<GatherParams> index_prepare_index_select(const KernelCall& call, PrepareInfo* out_info);
Result<GatherParams> index_prepare_gather(const KernelCall& call, PrepareInfo* out_info);
}  // namespace tir::kernels
