// Ops whose output size depends on their input's values: nonzero(self) -> int64[n, rank],
// masked_select(self, mask) -> [n], repeat_interleave.self_Tensor(self, repeats, dim?) (n =
// sum(repeats) along dim), repeat_interleave.Tensor(repeats) -> int64[n] and
// _unique2(self, sorted, return_inverse, return_counts) -> [n] distinct values (boolean mask
// indices are index.Tensor's: kernels/shapes/indexing/index.h). torch names n with an unbacked
// symbol; the runtime counts
// it before planning (runtime/exec/data_dependent.h) and passes the bound count as a trailing
// int argument, so prepare knows the output shape; run checks the count it finds.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

struct DataDependentParams {
  std::array<Operand, 2> operands{};  // self; masked_select's mask
  NaryPlan plan;                      // masked_select: self and mask broadcast
  int64_t count = 0;                  // the bound output rows
  DType dtype = DType::kUndefined;    // self's
};

/// nonzero(self, count).
Result<DataDependentParams> nonzero_prepare(const KernelCall& call, PrepareInfo* out_info);
/// masked_select(self, mask, count).
Result<DataDependentParams> masked_select_prepare(const KernelCall& call, PrepareInfo* out_info);

/// repeat_interleave with a repeats tensor: each slice i of self along `dim` (of the flattened
/// self when dim is None), or the index i itself for .Tensor, repeats[i] times in a row.
struct RepeatParams {
  int self_input = -1, repeats_input = -1;  // self -1: .Tensor (the output is the indices)
  int64_t outer = 1, size = 0, inner = 1;   // self viewed as [outer, size, inner] around dim
  size_t elem_size = 8;
  int64_t count = 0;  // the bound output size along dim
};
/// repeat_interleave.self_Tensor(self, repeats, dim?, *, output_size?, count).
Result<RepeatParams> repeat_prepare_self_tensor(const KernelCall& call, PrepareInfo* out_info);
/// repeat_interleave.Tensor(repeats, *, output_size?, count).
Result<RepeatParams> repeat_prepare_tensor(const KernelCall& call, PrepareInfo* out_info);

/// _unique2(self, sorted, return_inverse, return_counts, count): the distinct values of self
/// in ascending order (also when sorted=False, whose order torch leaves unspecified), the
/// index of each element's value (self's shape; [0] when not asked for) and each value's
/// count ([n]; [0] when not asked for). Scratch: the sorted copy of self.
struct UniqueParams {
  DType dtype = DType::kUndefined;
  int64_t numel = 0, count = 0;
  bool inverse = false, counts = false;
};
Result<UniqueParams> unique_prepare(const KernelCall& call, PrepareInfo* out_info);

/// What the runtime counts to bind the output size: the nonzero elements of `t`, the true
/// elements of `mask` broadcast to `shape` (masked_select's output rows), and the repeated
/// size of repeat_interleave (the sum of `repeats`, or its one value times `size`).
int64_t count_nonzero(const Tensor& t);
int64_t count_masked(const Tensor& mask, std::span<const int64_t> self_shape);
Result<int64_t> count_repeats(const Tensor& repeats, int64_t size);
int64_t count_unique(const Tensor& t);

}  // namespace tir::kernels
