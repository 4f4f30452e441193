// Ops whose output size depends on their input's values: nonzero(self) -> int64[n, rank] and
// masked_select(self, mask) -> [n]. torch names n with an unbacked symbol; the runtime counts
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

/// What the runtime counts to bind the output size: the nonzero elements of `t`, and the
/// true elements of `mask` broadcast to `shape` (masked_select's output rows).
int64_t count_nonzero(const Tensor& t);
int64_t count_masked(const Tensor& mask, std::span<const int64_t> self_shape);

}  // namespace tir::kernels
