// What the family tables (kernels/ops/<family>.cc) share: their accessors, which
// kernels/ops/catalogue.cc assembles, and the short dtype names their rows use.
#pragma once

#include "kernels/ops/catalogue.h"

namespace tir::kernels::ops {

inline constexpr DType kU8 = DType::kUInt8;
inline constexpr DType kI8 = DType::kInt8;
inline constexpr DType kI16 = DType::kInt16;
inline constexpr DType kI32 = DType::kInt32;
inline constexpr DType kI64 = DType::kInt64;
inline constexpr DType kF16 = DType::kFloat16;
inline constexpr DType kF32 = DType::kFloat32;
inline constexpr DType kF64 = DType::kFloat64;
inline constexpr DType kBool = DType::kBool;
inline constexpr DType kBF16 = DType::kBFloat16;
inline constexpr DType kC64 = DType::kComplexFloat;
inline constexpr DType kC128 = DType::kComplexDouble;
inline constexpr DTypeSet kAny = DTypeSet::any();

std::span<const OpRow> unary_rows();
std::span<const OpRow> binary_rows();
std::span<const OpRow> reduction_rows();
std::span<const OpRow> normalization_rows();
std::span<const OpRow> softmax_rows();
std::span<const OpRow> linear_algebra_rows();
std::span<const OpRow> convolution_rows();
std::span<const OpRow> pooling_rows();
std::span<const OpRow> resampling_rows();
std::span<const OpRow> movement_rows();
std::span<const OpRow> indexing_rows();
std::span<const OpRow> creation_rows();
std::span<const OpRow> sort_select_rows();
std::span<const OpRow> quantization_rows();
std::span<const OpRow> assertion_rows();
std::span<const OpRow> complex_rows();
std::span<const OpRow> spectral_rows();

}  // namespace tir::kernels::ops
