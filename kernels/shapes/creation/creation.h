// Shared shape inference and validation for tensor creation (scalar_tensor, full, zeros, ones
// and their _like/new_ forms). Layout, device, pin_memory and memory_format arguments are
// accepted and ignored: every tir tensor is a contiguous CPU tensor.
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

}  // namespace tir::kernels
