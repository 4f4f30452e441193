// Shared shape inference and validation for sum.dim_IntList, amax and the scans cumsum,
// cumprod and logcumsumexp.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/reduction/mean.h"

namespace tir::kernels {

/// A reduction over ReduceParams' dims; input `in` is converted to `out` first (sum with
/// a dtype argument, or bool/int32 sums that torch returns as int64).
struct ReduceCastParams {
  ReduceParams r;
  DType in = DType::kFloat32, out = DType::kFloat32;
};

/// sum.dim_IntList(self, dim?, keepdim=False, *, dtype=None); None or [] = all dims.
Result<ReduceCastParams> sum_prepare(const KernelCall& call, PrepareInfo* out_info);
/// amax(self, dim=[], keepdim=False); [] = all dims; float32 or int64, NaN propagates.
Result<ReduceCastParams> amax_prepare(const KernelCall& call, PrepareInfo* out_info);

enum class Scan : uint8_t { kSum, kProd, kLogsumexp, kMax, kMin };

/// cumsum(self, dim, *, dtype=None), cumprod (the same arguments), logcumsumexp(self, dim)
/// (floating point only) and cummax/cummin(self, dim) -> (values, int64 indices: the last
/// position of the running extremum, NaN sticking) over x viewed as [outer, n, inner].
struct CumsumParams {
  int64_t outer = 0, n = 0, inner = 0;
  DType in = DType::kFloat32, out = DType::kFloat32;
  int input = -1;
  Scan scan = Scan::kSum;
};
Result<CumsumParams> cumsum_prepare(const KernelCall& call, PrepareInfo* out_info);
Result<CumsumParams> cumprod_prepare(const KernelCall& call, PrepareInfo* out_info);
Result<CumsumParams> logcumsumexp_prepare(const KernelCall& call, PrepareInfo* out_info);
template <Scan S>
Result<CumsumParams> cumulative_extremum_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
