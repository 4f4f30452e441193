// Shared shape inference for data-movement ops that map each output element to one input
// element (or a constant): padding (constant, reflection, replication), the strided views
// numpy_T, as_strided and diagonal (copies here, since tir tensors are dense), and copy. Any
// dtype unless noted.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"
#include "kernels/shapes/dtype_util.h"
#include "kernels/shapes/movement/view.h"

namespace tir::kernels {

enum class PadMode : uint8_t { kConstant, kReflect, kReplicate, kCircular };

struct PadParams {
  PadMode mode = PadMode::kConstant;
  int rank = 0;
  int input = -1;
  size_t elem_size = 0;
  DType dtype = DType::kUndefined;
  std::array<int64_t, kMaxRank> in_sizes{}, out_sizes{}, before{};
  ScalarValue value;
};

/// constant_pad_nd(self, pad, value=0).
Result<PadParams> movement_prepare_constant_pad(const KernelCall& call, PrepareInfo* out_info);
/// pad(self, pad, mode="constant", value=None).
Result<PadParams> movement_prepare_pad(const KernelCall& call, PrepareInfo* out_info);
/// reflection_pad{1,2,3}d / replication_pad{1,2,3}d(self, padding): pads the last `Dims` dims.
template <PadMode Mode, int Dims>
Result<PadParams> movement_prepare_pad_nd(const KernelCall& call, PrepareInfo* out_info);

/// numpy_T(self): dims reversed; as_strided(self, size, stride, storage_offset?) over the
/// elements of a contiguous self; diagonal(self, offset, dim1, dim2). All copy (ViewParams).
Result<ViewParams> movement_prepare_numpy_t(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> movement_prepare_as_strided(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> movement_prepare_diagonal(const KernelCall& call, PrepareInfo* out_info);

/// copy(self, src, non_blocking): src broadcast to self's shape, converted to self's dtype.
struct CopyIntoParams {
  int src = -1;
  DType from = DType::kUndefined, to = DType::kUndefined;
  NaryPlan plan;
};
Result<CopyIntoParams> movement_prepare_copy(const KernelCall& call, PrepareInfo* out_info);
/// copy_(self, src): copy() written into self's bytes (the output aliases self).
Result<CopyIntoParams> movement_prepare_copy_(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
