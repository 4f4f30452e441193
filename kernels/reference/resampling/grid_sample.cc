// Reference aten::grid_sampler_2d (kernels/shapes/resampling/grid_sample.h). Coordinate
// arithmetic in float as ATen's GridSampler.h does it (unnormalise, then clip or reflect per
// padding mode); bicubic uses ATen's A = -0.75 and pads each of its 16 taps.
#include "kernels/shapes/resampling/grid_sample.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

float unnormalize(float coord, int64_t size, bool align) {
  return align ? (coord + 1) / 2 * static_cast<float>(size - 1)
               : ((coord + 1) * static_cast<float>(size) - 1) / 2;
}

float clip(float x, int64_t size) {
  return std::min(static_cast<float>(size - 1), std::max(x, 0.f));
}

// Reflects x into [twice_low / 2, twice_high / 2] (ATen reflect_coordinates).
float reflect(float x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const float lo = static_cast<float>(twice_low) / 2;
  const float span = static_cast<float>(twice_high - twice_low) / 2;
  x = std::fabs(x - lo);
  const float extra = std::fmod(x, span);
  const int flips = static_cast<int>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

float pad_coordinate(float x, int64_t size, GridPadding padding, bool align) {
  if (padding == GridPadding::kBorder) return clip(x, size);
  if (padding == GridPadding::kReflection) {
    x = align ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    return clip(x, size);
  }
  return x;
}

// An integral coordinate as an index; NaN and far-out values (from any grid) become an index
// far out of bounds, also after +1.
int64_t to_index(float v) {
  return v > -1e9f && v < 1e9f ? static_cast<int64_t>(v) : -(int64_t{1} << 40);
}

struct Plane {
  const float* data;
  int64_t h, w;
  float at(int64_t y, int64_t x) const {  // zero outside
    return y >= 0 && y < h && x >= 0 && x < w ? data[y * w + x] : 0.f;
  }
};

float cubic1(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
float cubic2(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

void cubic_weights(float t, float out[4]) {
  constexpr float a = -0.75f;
  out[0] = cubic2(t + 1, a);
  out[1] = cubic1(t, a);
  out[2] = cubic1(1 - t, a);
  out[3] = cubic2(2 - t, a);
}

float sample(const GridSampleParams& p, const Plane& in, float gx, float gy) {
  if (p.mode == GridInterpolation::kBicubic) {
    const float x = unnormalize(gx, p.w, p.align_corners);
    const float y = unnormalize(gy, p.h, p.align_corners);
    const float x0 = std::floor(x), y0 = std::floor(y);
    float wx[4], wy[4];
    cubic_weights(x - x0, wx);
    cubic_weights(y - y0, wy);
    float acc = 0;
    for (int j = 0; j < 4; ++j) {
      float row = 0;
      for (int i = 0; i < 4; ++i) {
        const float tx = pad_coordinate(x0 - 1 + i, p.w, p.padding, p.align_corners);
        const float ty = pad_coordinate(y0 - 1 + j, p.h, p.padding, p.align_corners);
        row += wx[i] * in.at(to_index(ty), to_index(tx));
      }
      acc += wy[j] * row;
    }
    return acc;
  }
  const float x =
      pad_coordinate(unnormalize(gx, p.w, p.align_corners), p.w, p.padding, p.align_corners);
  const float y =
      pad_coordinate(unnormalize(gy, p.h, p.align_corners), p.h, p.padding, p.align_corners);
  if (p.mode == GridInterpolation::kNearest) {
    return in.at(to_index(std::nearbyint(y)), to_index(std::nearbyint(x)));
  }
  const float x0 = std::floor(x), y0 = std::floor(y);
  const int64_t ix = to_index(x0), iy = to_index(y0);
  const float e = x - x0, s = y - y0;  // east and south weights
  return in.at(iy, ix) * (1 - e) * (1 - s) + in.at(iy, ix + 1) * e * (1 - s) +
         in.at(iy + 1, ix) * (1 - e) * s + in.at(iy + 1, ix + 1) * e * s;
}

void ref_grid_sample(const GridSampleParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  const float* grid = call.inputs[p.grid].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  for (int64_t n = 0; n < p.n; ++n) {
    const float* g = grid + n * p.oh * p.ow * 2;
    for (int64_t c = 0; c < p.c; ++c) {
      const Plane in{x + (n * p.c + c) * p.h * p.w, p.h, p.w};
      float* out = y + (n * p.c + c) * p.oh * p.ow;
      for (int64_t k = 0; k < p.oh * p.ow; ++k) out[k] = sample(p, in, g[2 * k], g[2 * k + 1]);
    }
  }
}

using GridSampleRef = FnKernel<GridSampleParams, grid_sample_prepare, ref_grid_sample>;

}  // namespace

void register_grid_sample_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::grid_sampler_2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
      {"aten::grid_sampler", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
  });
}
}  // namespace tir::kernels
