// bincount(self, weights=None, minlength=0): how often each value of the 1-D non-negative int
// tensor self occurs (int64), or the sum of the weights of its elements (the weights' dtype);
// max(self) + 1 bins, at least minlength. torch names that size with an unbacked symbol: the
// runtime counts it before planning (runtime/exec/data_dependent.h, bincount_size) and passes
// it as a trailing int argument.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct BincountParams {
  int self = -1, weights = -1;  // input indices; weights -1: none
  DType self_dtype = DType::kUndefined, out = DType::kInt64;
  int64_t n = 0, bins = 0;
};

Result<BincountParams> bincount_prepare(const KernelCall& call, PrepareInfo* out_info);

/// The bins bincount makes of `self` with `minlength`: max(self) + 1, at least minlength; an
/// error for a negative value.
Result<int64_t> bincount_size(const Tensor& self, int64_t minlength);

}  // namespace tir::kernels
