// Reference average pooling, nearest/bilinear upsampling, group norm and weight norm
// (kernels/shapes/resampling/spatial.h). Index and weight arithmetic follows ATen's CPU kernels
// (float32 scales for upsampling); sums run in double.
#include "kernels/shapes/resampling/spatial.h"

#include <algorithm>
#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

void ref_avg_pool(const AvgPoolParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  const int D = p.dims;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, pad{};
  for (int d = 0; d < D; ++d) {
    in[3 - D + d] = p.in[d];
    out[3 - D + d] = p.out[d];
    k[3 - D + d] = p.kernel[d];
    s[3 - D + d] = p.stride[d];
    pad[3 - D + d] = p.pad[d];
  }
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const float* xp = x + pl * in_plane;
    float* yp = y + pl * out_plane;
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          std::array<int64_t, 3> lo{}, hi{};
          const std::array<int64_t, 3> o{od, oh, ow};
          int64_t pool = 1, count = 1;
          for (int d = 0; d < 3; ++d) {
            lo[d] = o[d] * s[d] - pad[d];
            hi[d] = std::min(lo[d] + k[d], in[d] + pad[d]);
            pool *= hi[d] - lo[d];
            lo[d] = std::max<int64_t>(lo[d], 0);
            hi[d] = std::min(hi[d], in[d]);
            count *= hi[d] - lo[d];
          }
          double sum = 0;
          for (int64_t a = lo[0]; a < hi[0]; ++a)
            for (int64_t b = lo[1]; b < hi[1]; ++b)
              for (int64_t c = lo[2]; c < hi[2]; ++c) sum += xp[(a * in[1] + b) * in[2] + c];
          const int64_t div = p.divisor ? p.divisor : (p.count_include_pad ? pool : count);
          yp[(od * out[1] + oh) * out[2] + ow] = static_cast<float>(sum / double(div));
        }
  }
}

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

void ref_group_norm(const GroupNormParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  const float* w = p.weight >= 0 ? call.inputs[p.weight].data_as<const float>() : nullptr;
  const float* b = p.bias >= 0 ? call.inputs[p.bias].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  const int64_t cg = p.c / p.groups, span = cg * p.hw;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      const int64_t base = (n * p.c + g * cg) * p.hw;
      double sum = 0;
      for (int64_t i = 0; i < span; ++i) sum += x[base + i];
      const double mean = span ? sum / double(span) : 0.0;
      double m2 = 0;
      for (int64_t i = 0; i < span; ++i) m2 += (x[base + i] - mean) * (x[base + i] - mean);
      const double rstd = 1.0 / std::sqrt((span ? m2 / double(span) : 0.0) + p.eps);
      for (int64_t c = 0; c < cg; ++c) {
        const int64_t ch = g * cg + c;
        const double scale = rstd * (w ? w[ch] : 1.0f), shift = b ? b[ch] : 0.0f;
        for (int64_t i = 0; i < p.hw; ++i) {
          const int64_t at = base + c * p.hw + i;
          y[at] = static_cast<float>((x[at] - mean) * scale + shift);
        }
      }
      if (p.stats) {
        call.outputs[1].data_as<float>()[n * p.groups + g] = static_cast<float>(mean);
        call.outputs[2].data_as<float>()[n * p.groups + g] = static_cast<float>(rstd);
      }
    }
  }
}

void ref_weight_norm(const WeightNormParams& p, const KernelCall& call, void* scratch) {
  const float* v = call.inputs[p.v].data_as<const float>();
  const float* g = call.inputs[p.g].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  double* sq = static_cast<double*>(scratch);
  for (int64_t k = 0; k < p.n; ++k) sq[k] = 0;
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k < p.n; ++k)
      for (int64_t i = 0; i < p.inner; ++i) {
        const double x = v[(o * p.n + k) * p.inner + i];
        sq[k] += x * x;
      }
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t k = 0; k < p.n; ++k) {
      const double scale = g[k] / std::sqrt(sq[k]);
      for (int64_t i = 0; i < p.inner; ++i) {
        const int64_t at = (o * p.n + k) * p.inner + i;
        y[at] = static_cast<float>(v[at] * scale);
      }
    }
}

template <int D>
using AvgPoolRef = FnKernel<AvgPoolParams, spatial_prepare_avg_pool<D>, ref_avg_pool>;
template <bool Vec>
using NearestRef = FnKernel<UpsampleParams, spatial_prepare_nearest<Vec>, ref_upsample>;
template <bool Vec>
using BilinearRef = FnKernel<UpsampleParams, spatial_prepare_bilinear<Vec>, ref_upsample>;
using NativeGroupNormRef =
    FnKernel<GroupNormParams, spatial_prepare_native_group_norm, ref_group_norm>;
using GroupNormRef = FnKernel<GroupNormParams, spatial_prepare_group_norm, ref_group_norm>;
using WeightNormRef = FnKernel<WeightNormParams, spatial_prepare_weight_norm, ref_weight_norm>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

}  // namespace

void register_spatial_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::avg_pool1d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<1>>},
      {"aten::avg_pool2d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<2>>},
      {"aten::avg_pool3d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<3>>},
      {"aten::upsample_nearest2d.vec", kCpu, kF32, kRef, &make_kernel<NearestRef<true>>},
      {"aten::upsample_nearest2d", kCpu, kF32, kRef, &make_kernel<NearestRef<false>>},
      {"aten::upsample_bilinear2d.vec", kCpu, kF32, kRef, &make_kernel<BilinearRef<true>>},
      {"aten::upsample_bilinear2d", kCpu, kF32, kRef, &make_kernel<BilinearRef<false>>},
      {"aten::native_group_norm", kCpu, kF32, kRef, &make_kernel<NativeGroupNormRef>},
      {"aten::group_norm", kCpu, kF32, kRef, &make_kernel<GroupNormRef>},
      {"aten::_weight_norm", kCpu, kF32, kRef, &make_kernel<WeightNormRef>},
  });
}
}  // namespace tir::kernels
