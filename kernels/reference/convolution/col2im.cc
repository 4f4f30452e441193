// Reference aten::col2im and aten::im2col (kernels/shapes/convolution/col2im.h): col2im adds
// every block's column into the image at its window, im2col copies the windows out; taps in
// the padding are dropped (col2im) or zero (im2col).
#include "kernels/shapes/convolution/col2im.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

// Walks every (image position, column entry) pair of the block grid; Col2im adds columns into
// the image, otherwise the image is copied into the columns (zeros in the padding).
template <bool Col2im>
void ref_blocks(const Col2imParams& p, const KernelCall& call, void*) {
  const float* src = call.inputs[p.input].data_as<const float>();
  float* dst = call.outputs[0].data_as<float>();
  const int64_t plane = p.out[0] * p.out[1], blocks = p.blocks[0] * p.blocks[1];
  if (Col2im) {
    for (int64_t i = 0; i < p.n * p.c * plane; ++i) dst[i] = 0;
  }
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t ki = 0; ki < p.kernel[0]; ++ki)
        for (int64_t kj = 0; kj < p.kernel[1]; ++kj) {
          const int64_t row = (c * p.kernel[0] + ki) * p.kernel[1] + kj;
          const int64_t col = (n * p.c * p.kernel[0] * p.kernel[1] + row) * blocks;
          const int64_t img = (n * p.c + c) * plane;
          for (int64_t bh = 0; bh < p.blocks[0]; ++bh) {
            const int64_t h = bh * p.stride[0] - p.pad[0] + ki * p.dil[0];
            for (int64_t bw = 0; bw < p.blocks[1]; ++bw) {
              const int64_t w = bw * p.stride[1] - p.pad[1] + kj * p.dil[1];
              const bool inside = h >= 0 && h < p.out[0] && w >= 0 && w < p.out[1];
              const int64_t at_col = col + bh * p.blocks[1] + bw;
              if (Col2im) {
                if (inside) dst[img + h * p.out[1] + w] += src[at_col];
              } else {
                dst[at_col] = inside ? src[img + h * p.out[1] + w] : 0.f;
              }
            }
          }
        }
}

using Col2imRef = FnKernel<Col2imParams, col2im_prepare, ref_blocks<true>>;
using Im2colRef = FnKernel<Col2imParams, im2col_prepare, ref_blocks<false>>;

}  // namespace

void register_col2im_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::col2im", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Col2imRef>},
      {"aten::im2col", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Im2colRef>},
  });
}
}  // namespace tir::kernels
