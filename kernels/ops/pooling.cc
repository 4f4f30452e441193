// The pooling family of the op catalogue (kernels/ops/catalogue.h): max, average and adaptive
// average pooling. Each row: the op, then the dtypes each backend implements (reference, cpu,
// cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kPoolingRows[] = {
    {"aten::_adaptive_avg_pool2d",    {kF32, kF64}, {},     {}},
    {"aten::_adaptive_avg_pool3d",    {kF32},       {},     {}},
    {"aten::adaptive_avg_pool1d",     {kF32},       {},     {}},
    {"aten::adaptive_avg_pool2d",     {kF32, kF64}, {kF32}, {}, {.channels_last = 0b1}},
    {"aten::adaptive_avg_pool3d",     {kF32},       {},     {}},
    {"aten::adaptive_max_pool1d",     {kF32, kF64}, {},     {}},
    {"aten::adaptive_max_pool2d",     {kF32, kF64}, {},     {}},
    {"aten::avg_pool1d",              {kF32, kF64}, {},     {}},
    {"aten::avg_pool2d",              {kF32, kF64}, {},     {}},
    {"aten::avg_pool3d",              {kF32, kF64}, {},     {}},
    {"aten::max_pool2d",              {kI64, kF32, kF64}, {kF32}, {}},
    {"aten::max_pool2d_with_indices", {kI64, kF32, kF64}, {},     {}},
    {"aten::max_pool3d",              {kI64, kF32, kF64}, {},     {}},
    {"aten::max_pool3d_with_indices", {kI64, kF32, kF64}, {},     {}},
    {"aten::max_unpool2d",          kAny,         {},     {}, {.all_dtypes = true}},
};
// clang-format on

}  // namespace

std::span<const OpRow> pooling_rows() { return kPoolingRows; }

}  // namespace tir::kernels::ops
