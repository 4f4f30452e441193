// Shared shape inference for float32 upsampling over 1 to 3 spatial dims: nearest,
// nearest-exact, linear (1-D linear, bilinear, trilinear), bicubic, and the antialiased
// bilinear and bicubic of `interpolate(..., antialias=True)`; output size or scale factors,
// align_corners.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

enum class Resample : uint8_t { kNearest, kNearestExact, kLinear, kCubic, kLinearAa, kCubicAa };

struct UpsampleParams {
  Resample mode = Resample::kNearest;
  bool align_corners = false;
  int input = -1;
  int dims = 2;  // spatial dims, the last ones of the input
  int64_t planes = 0;
  std::array<int64_t, 3> in{}, out{};
  std::array<double, 3> scale{};  // given scale factors (0: none)
  DType dtype = DType::kFloat32;  // input and output: float32, or float64 (not antialiased)
};

/// The `.vec` overloads (Vec): (input, output_size?, [align_corners,] scale_factors?);
/// the others: (self, output_size, [align_corners,] scales_<dim>? per spatial dim).
/// align_corners is there for every mode but the nearest ones.
template <Resample Mode, int Dims, bool Vec>
Result<UpsampleParams> upsample_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
