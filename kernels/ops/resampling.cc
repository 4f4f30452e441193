// The resampling family of the op catalogue (kernels/ops/catalogue.h): upsampling and grid
// sampling. Each row: the op, then the dtypes each backend implements (reference, cpu, cuda),
// then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kRows[] = {
    {"aten::grid_sampler",            {kF32}, {}, {}},
    {"aten::grid_sampler_2d",         {kF32}, {}, {}},
    {"aten::upsample_bilinear2d",     {kF32}, {}, {}},
    {"aten::upsample_bilinear2d.vec", {kF32}, {}, {}},
    {"aten::upsample_nearest2d",      {kF32}, {}, {}},
    {"aten::upsample_nearest2d.vec",  {kF32}, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> resampling_rows() { return kRows; }

}  // namespace tir::kernels::ops
