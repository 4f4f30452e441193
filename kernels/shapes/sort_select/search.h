// Shared shape inference for the binary searches into sorted values:
//   searchsorted.Tensor(sorted_sequence, self, *, out_int32, right, side?, sorter?) and
//   searchsorted.Scalar (self a number): for each value of self, the index in the sorted
//     sequence's last dim (1-D: one sequence for all; else one per row, its leading dims
//     self's) where it would be inserted, before equal values (left) or after them (right or
//     side="right");
//   bucketize.Tensor(self, boundaries[1-D], *, out_int32, right) and bucketize.Scalar: the same
//     with the arguments in the other order.
// int64 output (int32 with out_int32); any real dtypes, compared as double. A sorter is
// refused. And set membership (isin), a binary search into the sorted test elements.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct SearchParams {
  int sorted = -1;      // KernelCall::inputs index of the sorted sequence
  Operand values;       // self: a tensor or a scalar
  int64_t rows = 1;     // sequences (1: one for every value)
  int64_t n = 0;        // values per sequence
  int64_t per_row = 0;  // self's values per sequence
  bool right = false;
  DType out = DType::kInt64;
};

/// isin.Tensor_Tensor(elements, test_elements, *, assume_unique, invert), .Tensor_Scalar and
/// .Scalar_Tensor: per element of `elements`, whether it equals one of `test_elements` (NaN
/// equals nothing; compared as double), negated by `invert`; bool, elements' shape.
struct IsinParams {
  Operand elements, tests;
  int64_t count = 0, tests_count = 0;
  bool invert = false;
};

Result<SearchParams> search_prepare_searchsorted(const KernelCall& call, PrepareInfo* out_info);
Result<IsinParams> search_prepare_isin(const KernelCall& call, PrepareInfo* out_info);
Result<SearchParams> search_prepare_bucketize(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
