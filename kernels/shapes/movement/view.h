// Shared shape inference for shape ops. View-like ops on contiguous inputs alias their
// input (PrepareInfo::output_alias[0] = input index, `run` does nothing); permute and 2-D
// t produce a real transposed copy; clone copies. Any dtype.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "kernels/kernel.h"

namespace tir::kernels {

/// Parameters of a shape op. `copy` false: the output aliases the input.
struct ViewParams {
  bool copy = false;
  bool permute = false;  // copy with `perm`, else a flat memcpy of `nbytes`
  int input = -1;
  size_t nbytes = 0;
  size_t elem_size = 0;
  int rank = 0;
  std::array<int64_t, kMaxRank> out_sizes{};
  std::array<int64_t, kMaxRank> in_strides{};  // input stride of each output dim
  int64_t in_offset = 0;                       // element the gather starts at
};

/// Output 0 aliases `x` (input 0) with shape `sizes`: the params of every aliasing op.
ViewParams view_alias(const KernelCall& call, const Tensor& x, std::span<const int64_t> sizes,
                      PrepareInfo* out_info);

/// view, reshape, _unsafe_view(self, size): one -1 is inferred; numel must match.
Result<ViewParams> view_prepare_view(const KernelCall& call, PrepareInfo* out_info);
/// view_as, reshape_as(self, other): self's elements in other's shape.
Result<ViewParams> view_prepare_as(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> view_prepare_flatten(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> view_prepare_unsqueeze(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> view_prepare_squeeze_dim(const KernelCall& call, PrepareInfo* out_info);
/// alias, detach, contiguous (any trailing args ignored): same shape, aliased.
Result<ViewParams> view_prepare_identity(const KernelCall& call, PrepareInfo* out_info);
/// unflatten.int(self, dim, sizes): dim split into `sizes` (one may be -1); an alias.
Result<ViewParams> view_prepare_unflatten(const KernelCall& call, PrepareInfo* out_info);
/// clone(self, memory_format): a contiguous copy.
Result<ViewParams> view_prepare_clone(const KernelCall& call, PrepareInfo* out_info);
Result<ViewParams> view_prepare_permute(const KernelCall& call, PrepareInfo* out_info);
/// movedim.int(self, source, destination): the permutation that moves dim `source` to
/// position `destination`, the others keeping their order.
Result<ViewParams> view_prepare_movedim(const KernelCall& call, PrepareInfo* out_info);
/// t(self): rank < 2 aliases, rank 2 is a transposed copy.
Result<ViewParams> view_prepare_t(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
