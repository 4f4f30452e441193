// Shared shape inference and validation for aten::mean.dim.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

struct ReduceParams {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};  // input sizes
  std::array<bool, kMaxRank> reduced{};   // per input dim
  int64_t out_numel = 0, reduce_numel = 1;
  /// When the reduced dims form one contiguous block: input = [outer, reduce_numel, inner].
  bool blocked = false;
  int64_t outer = 1, inner = 1;
  int input = -1;
  /// self or the output is channels-last (reduce_prepare_mean_dim_channels_last only):
  /// index both through their strides.
  bool strided = false;
};

/// The reduction layout of `x` (self, argument 0) over `dims` (None or empty: all), with
/// the output shape appended to `out_shape`; rejects repeated dims. Shared by every reduction.
Result<ReduceParams> plan_reduce(const KernelCall& call, const Tensor& x,
                                 std::optional<std::span<const int64_t>> dims, bool keepdim,
                                 std::vector<int64_t>* out_shape);

/// mean.dim(self, dim?, keepdim=False, *, dtype=None); empty or None dim = all dims.
Result<ReduceParams> reduce_prepare_mean_dim(const KernelCall& call, PrepareInfo* out_info);
/// The same for kernels that accept channels-last: self may also be a channels-last
/// [N, C, H, W], and a 4-D output gets channels-last strides when KernelCall::channels_last.
Result<ReduceParams> reduce_prepare_mean_dim_channels_last(const KernelCall& call,
                                                           PrepareInfo* out_info);

/// The reference loop of every reduction: for each output element o (row-major over the
/// kept dims), step(input_offset) over each input element reduced into it, then finish(o).
template <typename Step, typename Finish>
void for_each_reduced(const ReduceParams& p, Step&& step, Finish&& finish) {
  std::array<int64_t, kMaxRank> ks{}, kst{}, rs{}, rst{}, strides{};
  int nk = 0, nr = 0;
  int64_t stride = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= p.sizes[d];
  }
  for (int d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      rs[nr] = p.sizes[d];
      rst[nr++] = strides[d];
    } else {
      ks[nk] = p.sizes[d];
      kst[nk++] = strides[d];
    }
  }
  for (int64_t o = 0; o < p.out_numel; ++o) {
    int64_t base = 0, rem = o;
    for (int d = nk - 1; d >= 0; --d) {
      base += (rem % ks[d]) * kst[d];
      rem /= ks[d];
    }
    for (int64_t r = 0; r < p.reduce_numel; ++r) {
      int64_t off = base, rrem = r;
      for (int d = nr - 1; d >= 0; --d) {
        off += (rrem % rs[d]) * rst[d];
        rrem /= rs[d];
      }
      step(off);
    }
    finish(o);
  }
}

}  // namespace tir::kernels
