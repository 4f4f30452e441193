// Shared shape inference and validation for tensor creation: scalar_tensor, full, zeros, ones
// and their _like/new_ forms, fill, empty_strided/empty_permuted and arange. Layout, device,
// pin_memory and memory_format arguments are accepted and ignored: every tir tensor is a contiguous
// CPU tensor.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {

/// Every output element = `value` converted to `dtype`.
struct FillParams {
  DType dtype = DType::kFloat32;
  int64_t numel = 0;
  ScalarValue value;
};

enum class FillKind : uint8_t {
  kScalarTensor,  // (s, *, dtype?, ...) -> [] float32 by default
  kFull,          // (size, fill_value, *, dtype?, ...)
  kZeros,         // (size, *, dtype?, ...)
  kOnes,
  kFullLike,   // (self, fill_value, *, dtype?, ...)
  kZerosLike,  // (self, *, dtype?, ...)
  kOnesLike,
  kNewZeros,  // (self, size, *, dtype?, ...)
  kNewOnes,
};
template <FillKind Kind>
Result<FillParams> creation_prepare_fill(const KernelCall& call, PrepareInfo* out_info);

struct ArangeParams {
  DType dtype = DType::kInt64;
  double start = 0, step = 1;
  int64_t istart = 0, istep = 1;  // exact values for integer outputs
  int64_t n = 0;
};
/// arange(end), arange.start(start, end), arange.start_step(start, end, step), each with
/// dtype/layout/device/pin_memory. dtype None: int64 if every bound is an int, else float32.
Result<ArangeParams> creation_prepare_arange(const KernelCall& call, PrepareInfo* out_info);
Result<ArangeParams> creation_prepare_arange_start(const KernelCall& call, PrepareInfo* out_info);
Result<ArangeParams> creation_prepare_arange_start_step(const KernelCall& call,
                                                        PrepareInfo* out_info);

/// fill.Scalar / fill.Tensor (self, value) -> self's shape and dtype filled with value.
struct FillLikeParams {
  DType dtype = DType::kUndefined;
  int64_t numel = 0;
  ScalarValue value;
  int value_input = -1;  // fill.Tensor: read at run time
};
Result<FillLikeParams> creation_prepare_fill_self(const KernelCall& call, PrepareInfo* out_info);
/// empty_strided(size, stride, dtype?, ...) and empty_permuted(size, physical_layout,
/// dtype?, ...) -> a zero-filled contiguous tensor.
Result<FillLikeParams> creation_prepare_empty_strided(const KernelCall& call,
                                                      PrepareInfo* out_info);

}  // namespace tir::kernels
