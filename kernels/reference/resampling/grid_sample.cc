// Reference aten::grid_sampler_2d (kernels/shapes/resampling/grid_sample.h). Coordinate
// arithmetic in the input's dtype (float32 or float64) as ATen's GridSampler.h does it
// (unnormalise, then clip or reflect per padding mode); bicubic uses ATen's A = -0.75 and pads each
// of its 16 taps.
#include "kernels/shapes/resampling/grid_sample.h"

#include <cmath>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename T>
T unnormalize(T coord, int64_t size, bool align) {
  return align ? (coord + 1) / 2 * static_cast<T>(size - 1)
               : ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

template <typename T>
T clip(T x, int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(x, T(0)));
}

// Reflects x into [twice_low / 2, twice_high / 2] (ATen reflect_coordinates).
template <typename T>
T reflect(T x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const T lo = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  x = std::fabs(x - lo);
  const T extra = std::fmod(x, span);
  const int flips = static_cast<int>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

template <typename T>
T pad_coordinate(T x, int64_t size, GridPadding padding, bool align) {
  if (padding == GridPadding::kBorder) return clip(x, size);
  if (padding == GridPadding::kReflection) {
    x = align ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    return clip(x, size);
  }
  return x;
}

// An integral coordinate as an index; NaN and far-out values (from any grid) become an index
// far out of bounds, also after +1.
template <typename T>
int64_t to_index(T v) {
  return v > T(-1e9) && v < T(1e9) ? static_cast<int64_t>(v) : -(int64_t{1} << 40);
}

template <typename T>
struct Plane {
  const T* data;
  int64_t h, w;
  T at(int64_t y, int64_t x) const {  // zero outside
    return y >= 0 && y < h && x >= 0 && x < w ? data[y * w + x] : T(0);
  }
};

template <typename T>
T cubic1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename T>
T cubic2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <typename T>
void cubic_weights(T t, T out[4]) {
  constexpr T a = T(-0.75);
  out[0] = cubic2(t + 1, a);
  out[1] = cubic1(t, a);
  out[2] = cubic1(1 - t, a);
  out[3] = cubic2(2 - t, a);
}

template <typename T>
T sample(const GridSampleParams& p, const Plane<T>& in, T gx, T gy) {
  if (p.mode == GridInterpolation::kBicubic) {
    const T x = unnormalize(gx, p.w, p.align_corners);
    const T y = unnormalize(gy, p.h, p.align_corners);
    const T x0 = std::floor(x), y0 = std::floor(y);
    T wx[4], wy[4];
    cubic_weights(x - x0, wx);
    cubic_weights(y - y0, wy);
    T acc = 0;
    for (int j = 0; j < 4; ++j) {
      T row = 0;
      for (int i = 0; i < 4; ++i) {
        const T tx = pad_coordinate(x0 - 1 + i, p.w, p.padding, p.align_corners);
        const T ty = pad_coordinate(y0 - 1 + j, p.h, p.padding, p.align_corners);
        row += wx[i] * in.at(to_index(ty), to_index(tx));
      }
      acc += wy[j] * row;
    }
    return acc;
  }
  const T x =
      pad_coordinate(unnormalize(gx, p.w, p.align_corners), p.w, p.padding, p.align_corners);
  const T y =
      pad_coordinate(unnormalize(gy, p.h, p.align_corners), p.h, p.padding, p.align_corners);
  if (p.mode == GridInterpolation::kNearest) {
    return in.at(to_index(std::nearbyint(y)), to_index(std::nearbyint(x)));
  }
  const T x0 = std::floor(x), y0 = std::floor(y);
  const int64_t ix = to_index(x0), iy = to_index(y0);
  const T e = x - x0, s = y - y0;  // east and south weights
  return in.at(iy, ix) * (1 - e) * (1 - s) + in.at(iy, ix + 1) * e * (1 - s) +
         in.at(iy + 1, ix) * (1 - e) * s + in.at(iy + 1, ix + 1) * e * s;
}

template <typename T>
void grid_sample_typed(const GridSampleParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  const T* grid = call.inputs[p.grid].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  for (int64_t n = 0; n < p.n; ++n) {
    const T* g = grid + n * p.oh * p.ow * 2;
    for (int64_t c = 0; c < p.c; ++c) {
      const Plane<T> in{x + (n * p.c + c) * p.h * p.w, p.h, p.w};
      T* out = y + (n * p.c + c) * p.oh * p.ow;
      for (int64_t k = 0; k < p.oh * p.ow; ++k) out[k] = sample(p, in, g[2 * k], g[2 * k + 1]);
    }
  }
}

void ref_grid_sample(const GridSampleParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64)
    grid_sample_typed<double>(p, call);
  else
    grid_sample_typed<float>(p, call);
}

using GridSampleRef = FnKernel<GridSampleParams, grid_sample_prepare, ref_grid_sample>;

}  // namespace

void register_grid_sample_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::grid_sampler_2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
      {"aten::grid_sampler", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
      {"aten::grid_sampler_2d", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
      {"aten::grid_sampler", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<GridSampleRef>},
  });
}
}  // namespace tir::kernels
