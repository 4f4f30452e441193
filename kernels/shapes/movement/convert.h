// Shared shape inference and validation for dtype and device conversions: _to_copy, to.dtype,
// to.device, to.dtype_layout, type_as and lift_fresh_copy. Layout, device, pin_memory and
// memory_format arguments are accepted and ignored: every tir tensor is a contiguous CPU tensor.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

/// y = x converted to `out` (a plain copy when the dtypes match). When `alias` is set
/// the output is a view of the input and there is nothing to do.
struct ConvertParams {
  DType in = DType::kFloat32, out = DType::kFloat32;
  int64_t numel = 0;
  int input = -1;
  bool alias = false;
};

/// _to_copy(self, *, dtype?, layout?, device?, pin_memory?, non_blocking, memory_format?)
Result<ConvertParams> convert_prepare_to_copy(const KernelCall& call, PrepareInfo* out_info);
/// to.dtype(self, dtype, non_blocking, copy, memory_format?): a view when the dtype
/// already matches and copy=False, as torch returns self.
Result<ConvertParams> convert_prepare_to_dtype(const KernelCall& call, PrepareInfo* out_info);
/// to.device(self, device, dtype, non_blocking, copy, memory_format?): CPU only; a view
/// when the dtype already matches and copy is false.
Result<ConvertParams> convert_prepare_to_device(const KernelCall& call, PrepareInfo* out_info);
/// to.dtype_layout(self, *, dtype?, layout?, device?, pin_memory?, non_blocking, copy,
/// memory_format?)
Result<ConvertParams> convert_prepare_to_dtype_layout(const KernelCall& call,
                                                      PrepareInfo* out_info);
/// type_as(self, other): self converted to other's dtype (a view when they match).
Result<ConvertParams> convert_prepare_type_as(const KernelCall& call, PrepareInfo* out_info);
/// lift_fresh_copy(self): a copy.
Result<ConvertParams> convert_prepare_lift_fresh_copy(const KernelCall& call,
                                                      PrepareInfo* out_info);

}  // namespace tir::kernels
