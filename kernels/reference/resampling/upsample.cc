// Reference upsampling over 1 to 3 spatial dims (kernels/shapes/resampling/upsample.h). Each
// spatial dim gets its taps (per output index: source indices and weights), and an output
// element is their nested weighted sum, innermost dim first. Index and weight arithmetic
// follows ATen's CPU kernels (float32 scales; bicubic with A = -0.75, its antialiased form
// with Keys' a = -0.5 as PIL). float64 (all but the antialiased modes) computes scales and
// weights in double, as ATen's opmath type.
#include "kernels/shapes/resampling/upsample.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

/// One spatial dim's taps: output index o reads count[o] source indices at
/// index[o * width + j] with weights weight[o * width + j].
struct Taps {
  int64_t width = 1;
  std::vector<int64_t> count, index;
  std::vector<double> weight;  // computed in the op's dtype (float32 or float64), held exactly

  void resize(int64_t out, int64_t w) {
    width = w;
    count.assign(out, w);
    index.assign(out * w, 0);
    weight.assign(out * w, 0.0);
  }
  void set(int64_t o, int64_t j, int64_t i, double w) {
    index[o * width + j] = i;
    weight[o * width + j] = w;
  }
};

// ATen's compute_scales_value / area_pixel_compute_scale, in C (float; double for a float64
// op, as ATen's opmath type).
template <typename C = float>
C pixel_scale(int64_t in, int64_t out, bool align, double given) {
  if (align) return out > 1 ? static_cast<C>(in - 1) / static_cast<C>(out - 1) : C(0);
  return given > 0 ? static_cast<C>(1.0 / given) : static_cast<C>(in) / static_cast<C>(out);
}

// ATen's area_pixel_compute_source_index: linear clamps below at 0, cubic does not.
template <typename C>
C source_index(C scale, int64_t o, bool align, bool cubic) {
  if (align) return scale * static_cast<C>(o);
  const C src = scale * (static_cast<C>(o) + C(0.5)) - C(0.5);
  return cubic ? src : std::max(src, C(0));
}

int64_t nearest_source(Resample mode, int64_t o, int64_t in, int64_t out, double given) {
  const float scale = pixel_scale(in, out, false, given);
  if (mode == Resample::kNearestExact)
    return std::min(static_cast<int64_t>(
                        std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * scale))),
                    in - 1);
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
}

// Cubic convolution with parameter a (Keys): |x| <= 1 and 1 < |x| < 2.
template <typename C>
C cubic_near(C x, C a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename C>
C cubic_far(C x, C a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <typename C>
void linear_or_cubic_taps(const UpsampleParams& p, int d, Taps& t) {
  const bool cubic = p.mode == Resample::kCubic;
  const int64_t in = p.in[d], out = p.out[d];
  t.resize(out, cubic ? 4 : 2);
  const C scale = pixel_scale<C>(in, out, p.align_corners, p.scale[d]);
  for (int64_t o = 0; o < out; ++o) {
    const C real = source_index<C>(scale, o, p.align_corners, cubic);
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const C l = std::min(std::max(real - static_cast<C>(i0), C(0)), C(1));
    if (!cubic) {
      t.set(o, 0, i0, C(1) - l);
      t.set(o, 1, i0 + (i0 < in - 1 ? 1 : 0), l);
      continue;
    }
    constexpr C kA = C(-0.75);
    const C w[4] = {cubic_far<C>(l + 1, kA), cubic_near<C>(l, kA), cubic_near<C>(1 - l, kA),
                    cubic_far<C>(2 - l, kA)};
    for (int64_t j = 0; j < 4; ++j) t.set(o, j, std::clamp<int64_t>(i0 - 1 + j, 0, in - 1), w[j]);
  }
}

float aa_filter(Resample mode, float x) {
  x = std::abs(x);
  if (mode == Resample::kLinearAa) return x < 1.f ? 1.f - x : 0.f;
  constexpr float kA = -0.5f;
  if (x < 1.f) return cubic_near<float>(x, kA);
  return x < 2.f ? cubic_far<float>(x, kA) : 0.f;
}

// ATen's _compute_indices_min_size_weights_aa: a window of input indices around each
// output's centre, the filter stretched by the downscale, the weights normalised.
void antialiased_taps(const UpsampleParams& p, int d, Taps& t) {
  const int64_t in = p.in[d], out = p.out[d];
  const float scale = pixel_scale(in, out, false, p.scale[d]);
  const float half = p.mode == Resample::kLinearAa ? 1.f : 2.f;  // interp_size / 2
  const float support = scale >= 1.f ? half * scale : half;
  const int64_t width = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  t.resize(out, width);
  const float invscale = scale >= 1.f ? static_cast<float>(1.0 / scale) : 1.f;
  for (int64_t o = 0; o < out; ++o) {
    const float center = static_cast<float>(scale * (static_cast<double>(o) + 0.5));
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5f), 0);
    const int64_t n = std::clamp<int64_t>(
        std::min<int64_t>(static_cast<int64_t>(center + support + 0.5f), in) - lo, 0, width);
    float total = 0;
    for (int64_t j = 0; j < n; ++j) {
      const float w = aa_filter(p.mode, (static_cast<float>(j + lo) - center + 0.5f) * invscale);
      t.set(o, j, lo + j, w);
      total += w;
    }
    for (int64_t j = 0; j < n && total != 0.f; ++j) t.weight[o * width + j] /= total;
    t.count[o] = n;
  }
}

template <typename C>
Taps make_taps(const UpsampleParams& p, int d) {
  Taps t;
  if (d >= p.dims) {  // a unit dim: one tap
    t.resize(1, 1);
    t.set(0, 0, 0, 1.f);
    return t;
  }
  switch (p.mode) {
    case Resample::kNearest:
    case Resample::kNearestExact:
      t.resize(p.out[d], 1);
      for (int64_t o = 0; o < p.out[d]; ++o)
        t.set(o, 0, nearest_source(p.mode, o, p.in[d], p.out[d], p.scale[d]), 1.f);
      return t;
    case Resample::kLinear:
    case Resample::kCubic:
      linear_or_cubic_taps<C>(p, d, t);
      return t;
    case Resample::kLinearAa:
    case Resample::kCubicAa:
      antialiased_taps(p, d, t);
      return t;
  }
  return t;
}

template <typename T>
void upsample_typed(const UpsampleParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  const Taps t0 = make_taps<T>(p, 0), t1 = make_taps<T>(p, 1), t2 = make_taps<T>(p, 2);
  const int64_t in1 = p.dims > 1 ? p.in[1] : 1, in2 = p.dims > 2 ? p.in[2] : 1;
  const int64_t out0 = p.out[0], out1 = p.dims > 1 ? p.out[1] : 1;
  const int64_t out2 = p.dims > 2 ? p.out[2] : 1;
  const int64_t in_plane = p.in[0] * in1 * in2, out_plane = out0 * out1 * out2;
  // Weighted sum over one dim's taps of output index o, inner(i) giving each tap's value.
  auto sum = [](const Taps& t, int64_t o, auto&& inner) {
    T acc = 0;
    for (int64_t j = 0; j < t.count[o]; ++j)
      acc += static_cast<T>(t.weight[o * t.width + j]) * inner(t.index[o * t.width + j]);
    return acc;
  };
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const T* xp = x + pl * in_plane;
    T* yp = y + pl * out_plane;
    for (int64_t a = 0; a < out0; ++a)
      for (int64_t b = 0; b < out1; ++b)
        for (int64_t c = 0; c < out2; ++c)
          *yp++ = sum(t0, a, [&](int64_t i) {
            return sum(t1, b, [&](int64_t j) {
              return sum(t2, c, [&](int64_t k) { return xp[(i * in1 + j) * in2 + k]; });
            });
          });
  }
}

void ref_upsample(const UpsampleParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64)
    upsample_typed<double>(p, call);
  else
    upsample_typed<float>(p, call);
}

template <Resample Mode, int Dims, bool Vec>
using UpsampleRef = FnKernel<UpsampleParams, upsample_prepare<Mode, Dims, Vec>, ref_upsample>;

/// The op `name` and its `.vec` overload.
template <Resample Mode, int Dims>
void add_pair(KernelRegistry& registry, const std::string& name) {
  registry.add({
      {name, kCpu, kF32, kRef, &make_kernel<UpsampleRef<Mode, Dims, false>>},
      {name + ".vec", kCpu, kF32, kRef, &make_kernel<UpsampleRef<Mode, Dims, true>>},
  });
  if constexpr (Mode != Resample::kLinearAa && Mode != Resample::kCubicAa)
    registry.add({
        {name, kCpu, kF64, kRef, &make_kernel<UpsampleRef<Mode, Dims, false>>},
        {name + ".vec", kCpu, kF64, kRef, &make_kernel<UpsampleRef<Mode, Dims, true>>},
    });
}

}  // namespace

void register_upsample_ref(KernelRegistry& registry) {
  using enum Resample;
  add_pair<kNearest, 1>(registry, "aten::upsample_nearest1d");
  add_pair<kNearest, 2>(registry, "aten::upsample_nearest2d");
  add_pair<kNearest, 3>(registry, "aten::upsample_nearest3d");
  add_pair<kNearestExact, 1>(registry, "aten::_upsample_nearest_exact1d");
  add_pair<kNearestExact, 2>(registry, "aten::_upsample_nearest_exact2d");
  add_pair<kNearestExact, 3>(registry, "aten::_upsample_nearest_exact3d");
  add_pair<kLinear, 1>(registry, "aten::upsample_linear1d");
  add_pair<kLinear, 2>(registry, "aten::upsample_bilinear2d");
  add_pair<kLinear, 3>(registry, "aten::upsample_trilinear3d");
  add_pair<kCubic, 2>(registry, "aten::upsample_bicubic2d");
  add_pair<kLinearAa, 2>(registry, "aten::_upsample_bilinear2d_aa");
  add_pair<kCubicAa, 2>(registry, "aten::_upsample_bicubic2d_aa");
}
}  // namespace tir::kernels
