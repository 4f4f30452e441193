// Shared shape inference for the dim-wise scatters: scatter.src / scatter.value,
// scatter_add and scatter_reduce.two (sum, prod, mean, amax, amin; include_self). The
// output is a copy of self with, for every position i of index, the element at i with dim
// replaced by index[i] combined with src[i] (or the value). bool, int32, int64, float32 and
// float64. Index values are checked at run time before anything is written.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

enum class ScatterReduce : uint8_t { kNone, kSum, kProd, kMean, kAmax, kAmin };

struct ScatterDimParams {
  ScatterReduce reduce = ScatterReduce::kNone;
  bool include_self = true;
  int self = -1, index = -1, src = -1;  // src -1: `value`
  bool index_int32 = false;             // index is int32 (torch takes int32 too), else int64
  ScalarValue value;
  DType dtype = DType::kUndefined;
  int rank = 0, dim = 0;
  std::array<int64_t, kMaxRank> index_sizes{}, src_strides{}, out_strides{};
  int64_t out_numel = 0;
};

/// scatter.src(self, dim, index, src) and scatter.value(self, dim, index, value).
Result<ScatterDimParams> scatter_dim_prepare_scatter(const KernelCall& call, PrepareInfo* out_info);
/// scatter_add(self, dim, index, src).
Result<ScatterDimParams> scatter_dim_prepare_add(const KernelCall& call, PrepareInfo* out_info);
/// scatter_reduce.two(self, dim, index, src, reduce, include_self=True).
Result<ScatterDimParams> scatter_dim_prepare_reduce(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
