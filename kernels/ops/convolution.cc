// The convolution family of the op catalogue (kernels/ops/catalogue.h): convolutions and the
// patch transforms (im2col, col2im). Each row: the op, then the dtypes each backend implements
// (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kConvolutionRows[] = {
    {"aten::col2im",      {kF32}, {},     {}},
    {"aten::conv1d",      {kF32, kF64}, {kF32}, {}, {.epilogue = true, .channels_last = 0b1}},
    {"aten::conv2d",      {kF32, kF64}, {kF32}, {}, {.epilogue = true, .channels_last = 0b1}},
    {"aten::conv3d",      {kF32, kF64}, {kF32}, {}, {.epilogue = true}},
    {"aten::conv_transpose1d",       {kF32}, {}, {}},
    {"aten::conv_transpose2d.input", {kF32}, {}, {}},
    {"aten::conv_transpose3d.input", {kF32}, {}, {}},
    {"aten::convolution", {kF32, kF64}, {kF32}, {}, {.epilogue = true, .channels_last = 0b1}},
    {"aten::im2col",      {kF32}, {},     {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> convolution_rows() { return kConvolutionRows; }

}  // namespace tir::kernels::ops
