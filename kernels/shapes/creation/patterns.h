// Shared shape inference for tensors made from a pattern rather than one value: eye
// (identity matrices), linspace/logspace (evenly spaced values), one_hot and diag_embed. Layout,
// device and pin_memory arguments are accepted and ignored, as for the other creation ops.
#pragma once

#include <array>
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

/// diag_embed(self, offset=0, dim1=-2, dim2=-1): zeros, with self's last dim on the
/// diagonal `offset` of the planes (dim1, dim2) of a tensor one rank higher. Any dtype.
struct DiagEmbedParams {
  int input = -1;
  size_t elem_size = 0;
  int rank = 0;                             // of the output
  std::array<int64_t, kMaxRank> strides{};  // output strides of self's dims but the last
  int64_t n = 0, step = 0, start = 0;       // diagonal: length, stride, first offset
  int64_t outer = 1;                        // self's elements / n
  std::array<int64_t, kMaxRank> outer_sizes{};
};
Result<DiagEmbedParams> creation_prepare_diag_embed(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
