// Shared shape inference for aten::col2im (torch.nn.functional.fold): sums sliding blocks
// [N, C * kh * kw, L] back into images [N, C, H, W] (unbatched [C * kh * kw, L] too), and
// its inverse aten::im2col (unfold), which the training IR keeps.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct Col2imParams {
  int input = -1;
  int64_t n = 1, c = 0;
  std::array<int64_t, 2> out{}, kernel{}, dil{}, pad{}, stride{}, blocks{};
};

/// col2im(self, output_size[2], kernel_size[2], dilation[2], padding[2], stride[2]).
Result<Col2imParams> col2im_prepare(const KernelCall& call, PrepareInfo* out_info);
/// im2col(self [N, C, H, W] or [C, H, W], kernel_size[2], dilation[2], padding[2], stride[2])
/// -> [N, C * kh * kw, L] (torch.nn.functional.unfold; `out` is the image size H, W).
Result<Col2imParams> im2col_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
