// Shared shape inference for tensors made from a pattern rather than one value: eye
// (identity matrices), linspace/logspace (evenly spaced values) and one_hot. Layout, device
// and pin_memory arguments are accepted and ignored, as for the other creation ops.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// eye(n, *, dtype?, ...) and eye.m(n, m, *, dtype?, ...): ones on the diagonal of [n, m].
struct EyeParams {
  DType dtype = DType::kFloat32;
  int64_t n = 0, m = 0;
};
Result<EyeParams> creation_prepare_eye(const KernelCall& call, PrepareInfo* out_info);
Result<EyeParams> creation_prepare_eye_m(const KernelCall& call, PrepareInfo* out_info);

/// linspace(start, end, steps, *, dtype?, ...) and logspace(start, end, steps, base, *,
/// dtype?, ...): `steps` values from start to end (logspace: base raised to them).
struct SpaceParams {
  DType dtype = DType::kFloat32;
  double start = 0, end = 0, base = 0;  // base 0: linspace
  int64_t steps = 0;
};
Result<SpaceParams> creation_prepare_linspace(const KernelCall& call, PrepareInfo* out_info);
Result<SpaceParams> creation_prepare_logspace(const KernelCall& call, PrepareInfo* out_info);

/// one_hot(self, num_classes): int64 [*self.shape, num_classes]; num_classes = -1 (from the
/// values) is refused, as it gives no shape before the values are read.
struct OneHotParams {
  int input = -1;
  DType index_dtype = DType::kInt64;
  int64_t numel = 0, classes = 0;
};
Result<OneHotParams> creation_prepare_one_hot(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
