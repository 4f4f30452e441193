// Internal to the data-movement shape functions (copy.cc, list_copy.cc): a strided window of
// one input and the regions that copy windows into outputs.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "kernels/shapes/movement/copy.h"

namespace tir::kernels {

// A strided window of one input, written contiguously into one output.
struct Window {
  int rank = 0;
  std::array<int64_t, kMaxCopyRank> sizes{};
  std::array<int64_t, kMaxCopyRank> strides{};
  int64_t offset = 0;
};

/// All of x as a window.
Window whole(const Tensor& x);

/// Adds the region copying window `w` of input `in` into output `out` at `out_offset` with
/// `out_strides` (contiguous over w.sizes when null); nothing for an empty window.
void add_region(CopyParams& p, int in, int out, const Window& w, int64_t out_offset = 0,
                const int64_t* out_strides = nullptr);

/// An output of `shape` and x's dtype that is one window `w` of x (argument 0).
CopyParams one_window(const KernelCall& call, const Tensor& x, std::span<const int64_t> shape,
                      const Window& w);

}  // namespace tir::kernels
