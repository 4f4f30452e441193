// Shared shape inference for the scattering ops: index_copy(_) and index_put(_), which KV
// caches use, index_add(_) (a mixture of experts' sum over tokens), and slice_scatter,
// select_scatter and masked_scatter. index_copy and index_put
// write `source`/`values` into a copy of self (functional forms) or into self itself (the `_`
// forms: PrepareInfo::output_alias[0] is self). Any dtype is copied; index_put with
// accumulate=true adds, for bool/int32/int64/float32/float64.
// Index values are only known at run time: `run` checks every one of them before it
// writes anything, so a bad index leaves the output (and an aliased self) untouched.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"
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
  DType dtype = DType::kUndefined;
  bool add = false;  // index_add: out[.., index[j], ..] += alpha * source[.., j, ..]
  ScalarValue alpha;
  bool fill = false;  // index_fill: out[.., index[j], ..] = value (negative indices wrap)
  ScalarValue value;
  int value_input = -1;  // index_fill.int_Tensor: a 0-d tensor, read at run time
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
/// index_add(self, dim, index, source, *, alpha=1) and index_add_: bool, int32, int64,
/// float32, float64; repeated indices accumulate, in index order.
Result<IndexCopyParams> scatter_prepare_index_add(const KernelCall& call, PrepareInfo* out_info);
Result<IndexCopyParams> scatter_prepare_index_add_(const KernelCall& call, PrepareInfo* out_info);
/// index_fill.int_Scalar / .int_Tensor(self, dim, index, value) and the in-place forms:
/// bool, int32, int64, float32, float64.
Result<IndexCopyParams> scatter_prepare_index_fill(const KernelCall& call, PrepareInfo* out_info);
Result<IndexCopyParams> scatter_prepare_index_fill_(const KernelCall& call, PrepareInfo* out_info);
Result<IndexPutParams> scatter_prepare_index_put(const KernelCall& call, PrepareInfo* out_info);
Result<IndexPutParams> scatter_prepare_index_put_(const KernelCall& call, PrepareInfo* out_info);

/// slice_scatter / select_scatter: out = self with src written into a strided region.
struct ScatterRegionParams {
  int self = -1, src = -1;
  size_t elem_size = 0;
  int rank = 0;  // of src
  std::array<int64_t, kMaxRank> src_sizes{}, dst_strides{};
  int64_t dst_offset = 0;
};
/// slice_scatter(self, src, dim=0, start=None, end=None, step=1).
Result<ScatterRegionParams> scatter_prepare_slice_scatter(const KernelCall& call,
                                                          PrepareInfo* out_info);
/// select_scatter(self, src, dim, index).
Result<ScatterRegionParams> scatter_prepare_select_scatter(const KernelCall& call,
                                                           PrepareInfo* out_info);

/// masked_scatter(self, mask, source): self (broadcast with mask) where mask is false, the
/// next element of source (row-major) where it is true.
struct MaskedScatterParams {
  int self = -1, mask = -1, source = -1;
  size_t elem_size = 0;
  NaryPlan plan;  // over self and mask
};
Result<MaskedScatterParams> scatter_prepare_masked_scatter(const KernelCall& call,
                                                           PrepareInfo* out_info);

}  // namespace tir::kernels
