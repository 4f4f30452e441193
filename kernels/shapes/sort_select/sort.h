// Shared shape inference for sort and topk along one dim: values keep the input dtype,
// indices are int64. bool, int32, int64, float32 and float64 inputs; NaN sorts above every
// number, as in ATen.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct SortParams {
  int input = -1;
  DType dtype = DType::kUndefined;
  int64_t outer = 1, n = 0, inner = 1;  // input viewed as [outer, n, inner], sorting n
  int64_t k = 0;                        // elements kept (n for sort)
  bool descending = false;
  bool indices_only = false;  // argsort: one output, the indices
  bool topk = false;          // topk: torch's CPU selection (ties as torch breaks them)
  bool sorted = true;         // topk's `sorted`
};

/// sort(self, dim=-1, descending=False); sort.stable(self, *, stable?, dim=-1, descending).
template <bool Stable>
Result<SortParams> sort_prepare_sort(const KernelCall& call, PrepareInfo* out_info);
/// argsort(self, dim=-1, descending=False); argsort.stable(self, *, stable, dim=-1,
/// descending=False): sort's indices alone.
template <bool Stable>
Result<SortParams> sort_prepare_argsort(const KernelCall& call, PrepareInfo* out_info);
/// topk(self, k, dim=-1, largest=True, sorted=True).
Result<SortParams> sort_prepare_topk(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
