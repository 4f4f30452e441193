// Shared shape inference for aten::grid_sampler_2d: samples input [N, C, H, W] at the
// normalised (x, y) locations of grid [N, Ho, Wo, 2].
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

enum class GridInterpolation : uint8_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class GridPadding : uint8_t { kZeros = 0, kBorder = 1, kReflection = 2 };

struct GridSampleParams {
  int input = -1, grid = -1;
  int64_t n = 0, c = 0, h = 0, w = 0, oh = 0, ow = 0;
  GridInterpolation mode = GridInterpolation::kBilinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
  DType dtype = DType::kFloat32;  // input, grid and output: float32 or float64
};

/// grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
/// -> [N, C, Ho, Wo]; the modes are torch's numbers (see the enums).
Result<GridSampleParams> grid_sample_prepare(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
