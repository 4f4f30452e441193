// Reference nearest/bilinear upsampling (kernels/shapes/resampling/upsample.h). Index and weight
// arithmetic follows ATen's CPU kernels (float32 scales).
#include "kernels/shapes/resampling/upsample.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

float scale_value(double given, int64_t in, int64_t out) {
  return given > 0 ? static_cast<float>(1.0 / given)
                   : static_cast<float>(in) / static_cast<float>(out);
}

int64_t nearest_index(int64_t o, int64_t in, int64_t out, double given) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float scale = scale_value(given, in, out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
}

struct Lerp {
  int64_t i0 = 0, i1 = 0;
  float l0 = 1, l1 = 0;
};

Lerp linear_source(int64_t o, int64_t in, int64_t out, bool align, double given) {
  float scale = 0;
  if (align) {
    scale = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  } else {
    scale = scale_value(given, in, out);
  }
  const float src = align ? scale * static_cast<float>(o)
                          : std::max(scale * (static_cast<float>(o) + 0.5f) - 0.5f, 0.f);
  Lerp l;
  l.i0 = static_cast<int64_t>(src);
  l.i1 = l.i0 + (l.i0 < in - 1 ? 1 : 0);
  l.l1 = std::min(std::max(src - static_cast<float>(l.i0), 0.f), 1.f);
  l.l0 = 1.f - l.l1;
  return l;
}

void ref_upsample(const UpsampleParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const float* xp = x + pl * p.ih * p.iw;
    float* yp = y + pl * p.oh * p.ow;
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      for (int64_t ow = 0; ow < p.ow; ++ow) {
        if (!p.bilinear) {
          const int64_t ih = nearest_index(oh, p.ih, p.oh, p.scale_h);
          const int64_t iw = nearest_index(ow, p.iw, p.ow, p.scale_w);
          yp[oh * p.ow + ow] = xp[ih * p.iw + iw];
          continue;
        }
        const Lerp h = linear_source(oh, p.ih, p.oh, p.align_corners, p.scale_h);
        const Lerp w = linear_source(ow, p.iw, p.ow, p.align_corners, p.scale_w);
        yp[oh * p.ow + ow] =
            h.l0 * (w.l0 * xp[h.i0 * p.iw + w.i0] + w.l1 * xp[h.i0 * p.iw + w.i1]) +
            h.l1 * (w.l0 * xp[h.i1 * p.iw + w.i0] + w.l1 * xp[h.i1 * p.iw + w.i1]);
      }
    }
  }
}

template <bool Vec>
using NearestRef = FnKernel<UpsampleParams, upsample_prepare_nearest<Vec>, ref_upsample>;
template <bool Vec>
using BilinearRef = FnKernel<UpsampleParams, upsample_prepare_bilinear<Vec>, ref_upsample>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

}  // namespace

void register_upsample_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::upsample_nearest2d.vec", kCpu, kF32, kRef, &make_kernel<NearestRef<true>>},
      {"aten::upsample_nearest2d", kCpu, kF32, kRef, &make_kernel<NearestRef<false>>},
      {"aten::upsample_bilinear2d.vec", kCpu, kF32, kRef, &make_kernel<BilinearRef<true>>},
      {"aten::upsample_bilinear2d", kCpu, kF32, kRef, &make_kernel<BilinearRef<false>>},
  });
}
}  // namespace tir::kernels
