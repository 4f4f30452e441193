// The quantization family of the op catalogue (kernels/ops/catalogue.h): quantize, dequantize
// and choose quantization parameters (the pt2e quantized_decomposed ops; torchao's affine ops,
// which quantize_ leaves in a training-IR program) and tir's int8 linear.
// Each row: the op, then the dtypes each backend implements (reference, cpu, cuda), then its
// capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kQuantizationRows[] = {
    {"quantized_decomposed::choose_qparams.tensor",        {kF32}, {},   {}},
    {"quantized_decomposed::dequantize_per_channel",       kAny,   {},   {}},
    {"quantized_decomposed::dequantize_per_tensor",        kAny,   {},   {}},
    {"quantized_decomposed::dequantize_per_tensor.tensor", kAny,   {},   {}},
    {"quantized_decomposed::quantize_per_tensor",          {kF32}, {},   {}},
    {"quantized_decomposed::quantize_per_tensor.tensor",   {kF32}, {},   {}},
    {"tir::quantized_linear",                              kAny,   kAny, {}},
    {"torchao::choose_qparams_affine",                     {kF32}, {},   {}},
    {"torchao::dequantize_affine",                         kAny,   {},   {}},
    {"torchao::quantize_affine",                           {kF32}, {},   {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> quantization_rows() { return kQuantizationRows; }

}  // namespace tir::kernels::ops
