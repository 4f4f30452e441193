// Shared shape inference for the scattering ops that KV caches use: index_copy(_) and
// index_put(_). They write `source`/`values` into a copy of self (functional forms) or
// into self itself (the `_` forms: PrepareInfo::output_alias[0] is self). Any dtype is
// copied; index_put with accumulate=true adds, for bool/int32/int64/float32/float64.
// Index values are only known at run time: `run` checks every one of them before it
// writes anything, so a bad index leaves the output (and an aliased self) untouched.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/indexing/index.h"

namespace tir::kernels {

/// index_copy(self, dim, index[N] or 0-d, source): out[.., index[j], ..] = source[.., j, ..].
/// As in torch, index values must lie in [0, self.size(dim)) (no negative indices).
struct IndexCopyParams {
  size_t elem_size = 0;
  int self_input = -1, index_input = -1, source_input = -1;
  bool in_place = false;  // output aliases self
  int dim = 0;
  int64_t outer = 1, dim_size = 1, inner = 1, n_index = 0;
};

/// index_put(self, indices, values, accumulate): self[indices] = values (or += values).
/// `index` walks the indexed positions like index.Tensor with the tail dims spelled out
/// (index.inner == 1); `values_strides` are the values' strides over the same dims
/// (0 where values broadcast).
struct IndexPutParams {
  IndexParams index;
  std::array<int64_t, kMaxRank> values_strides{};
  int values_input = -1;
  DType dtype = DType::kUndefined;
  bool accumulate = false;
  bool in_place = false;  // output aliases self
};

Result<IndexCopyParams> scatter_prepare_index_copy(const KernelCall& call, PrepareInfo* out_info);
Result<IndexCopyParams> scatter_prepare_index_copy_(const KernelCall& call, PrepareInfo* out_info);
Result<IndexPutParams> scatter_prepare_index_put(const KernelCall& call, PrepareInfo* out_info);
Result<IndexPutParams> scatter_prepare_index_put_(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
