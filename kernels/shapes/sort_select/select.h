// Order statistics along one dim (or of the whole tensor): median, nanmedian, kthvalue, mode.
// The k-th smallest value (1-based) of each slice in the order sort gives (NaN above every
// number, equal values in input order) and its index in the slice. median picks
// k = (n + 1) / 2, the lower of the two middle values, as torch; a slice holding NaN has median
// NaN (its first NaN); nanmedian skips NaN and is NaN only for an all-NaN slice. mode: the
// value met most often in the slice (the smallest of those met equally often; NaNs count as
// one value) and the index of its last occurrence, as torch's CPU kernel gives.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct SelectParams {
  enum class Kind : uint8_t { kMedian, kNanMedian, kKth, kMode };
  Kind kind = Kind::kMedian;
  int input = -1;
  DType dtype = DType::kUndefined;
  int64_t outer = 1, n = 0, inner = 1;  // input viewed as [outer, n, inner]
  int64_t k = 1;                        // kKth: the rank selected (1-based)
  bool indices = true;  // a second output of indices (not for the whole-tensor forms)
};

/// median(self) / nanmedian(self): a 0-dim value of all elements.
template <SelectParams::Kind Kind>
Result<SelectParams> select_prepare_all(const KernelCall& call, PrepareInfo* out_info);
/// median.dim / nanmedian.dim / mode(self, dim, keepdim=False): (values, indices).
template <SelectParams::Kind Kind>
Result<SelectParams> select_prepare_dim(const KernelCall& call, PrepareInfo* out_info);
/// kthvalue(self, k, dim=-1, keepdim=False): (values, indices).
Result<SelectParams> select_prepare_kthvalue(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
