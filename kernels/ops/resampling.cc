// The resampling family of the op catalogue (kernels/ops/catalogue.h): upsampling (nearest,
// nearest-exact, linear, bicubic and antialiased, over 1 to 3 spatial dims) and grid
// sampling. Each row: the op, then the dtypes each backend implements (reference, cpu, cuda),
// then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kResamplingRows[] = {
    {"aten::grid_sampler",            {kF32, kF64}, {}, {}},
    {"aten::grid_sampler_2d",         {kF32, kF64}, {}, {}},
    {"aten::_upsample_bicubic2d_aa",          {kF32}, {}, {}},
    {"aten::_upsample_bicubic2d_aa.vec",      {kF32}, {}, {}},
    {"aten::_upsample_bilinear2d_aa",         {kF32}, {}, {}},
    {"aten::_upsample_bilinear2d_aa.vec",     {kF32}, {}, {}},
    {"aten::_upsample_nearest_exact1d",       {kF32, kF64}, {}, {}},
    {"aten::_upsample_nearest_exact1d.vec",   {kF32, kF64}, {}, {}},
    {"aten::_upsample_nearest_exact2d",       {kF32, kF64}, {}, {}},
    {"aten::_upsample_nearest_exact2d.vec",   {kF32, kF64}, {}, {}},
    {"aten::_upsample_nearest_exact3d",       {kF32, kF64}, {}, {}},
    {"aten::_upsample_nearest_exact3d.vec",   {kF32, kF64}, {}, {}},
    {"aten::upsample_bicubic2d",              {kF32, kF64}, {}, {}},
    {"aten::upsample_bicubic2d.vec",          {kF32, kF64}, {}, {}},
    {"aten::upsample_bilinear2d",             {kF32, kF64}, {}, {}},
    {"aten::upsample_bilinear2d.vec",         {kF32, kF64}, {}, {}},
    {"aten::upsample_linear1d",               {kF32, kF64}, {}, {}},
    {"aten::upsample_linear1d.vec",           {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest1d",              {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest1d.vec",          {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest2d",              {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest2d.vec",          {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest3d",              {kF32, kF64}, {}, {}},
    {"aten::upsample_nearest3d.vec",          {kF32, kF64}, {}, {}},
    {"aten::upsample_trilinear3d",            {kF32, kF64}, {}, {}},
    {"aten::upsample_trilinear3d.vec",        {kF32, kF64}, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> resampling_rows() { return kResamplingRows; }

}  // namespace tir::kernels::ops
