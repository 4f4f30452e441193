// Shared shape inference for the reductions beyond sum/mean.dim/amax: amin, argmax,
// argmin, max.dim/min.dim (values and indices), full max/min, prod, var and std, full mean
// and any. Reduced dims may be any subset; keepdim keeps them as size 1. bool, int32,
// int64, float32 and float64 inputs.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/ops/reduction.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

using ops::ReduceKind;

struct ReductionParams {
  ReduceKind op = ReduceKind::kAmin;
  int input = -1;
  DType in = DType::kUndefined;
  DType out = DType::kUndefined;
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> out_strides{};  // per input dim; 0 where reduced
  std::array<int64_t, kMaxRank> red_strides{};  // per input dim: position in the reduced set
  int64_t out_numel = 1, group = 1;             // outputs, elements reduced into each
  double correction = 1;                        // var/std
  double ord = 2;                               // linalg_vector_norm
};

/// amin/amax(self, dim=[], keepdim=False); any.dims(self, dim?, keepdim).
template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_dims(const KernelCall& call, PrepareInfo* out_info);
/// argmax/argmin(self, dim?, keepdim); max.dim/min.dim(self, dim, keepdim);
/// prod.dim_int(self, dim, keepdim, dtype?); any.dim(self, dim, keepdim).
template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_one_dim(const KernelCall& call, PrepareInfo* out_info);
/// count_nonzero.dim_IntList(self, dim[]) (List) and count_nonzero(self, dim?): int64.
template <bool List>
Result<ReductionParams> reduction_prepare_count_nonzero(const KernelCall& call,
                                                        PrepareInfo* out_info);
/// aminmax(self, *, dim?, keepdim): (min, max), over all dims without dim.
Result<ReductionParams> reduction_prepare_aminmax(const KernelCall& call, PrepareInfo* out_info);
/// Full reductions: max(self), min(self), prod(self, dtype?), mean(self, dtype?),
/// any(self), all(self), sum(self, dtype?).
template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_full(const KernelCall& call, PrepareInfo* out_info);
/// var.correction/std.correction(self, dim?, correction?, keepdim);
/// var.dim/std.dim(self, dim?, unbiased, keepdim).
template <ReduceKind Op, bool Correction>
Result<ReductionParams> reduction_prepare_var(const KernelCall& call, PrepareInfo* out_info);
/// var_mean / std_mean (.correction, .dim): the same arguments, two outputs (the variance or
/// standard deviation, then the mean).
template <ReduceKind Op, bool Correction>
Result<ReductionParams> reduction_prepare_var_mean(const KernelCall& call, PrepareInfo* out_info);
/// linalg_vector_norm(self, ord=2, dim?, keepdim, dtype?): float in, float out (dtype casts
/// the input first).
Result<ReductionParams> reduction_prepare_norm(const KernelCall& call, PrepareInfo* out_info);
/// logsumexp(self, dim, keepdim): integer inputs give float32.
Result<ReductionParams> reduction_prepare_logsumexp(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
