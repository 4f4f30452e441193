// The precision GEMM-class kernels compute in. The graph and every tensor between kernels
// stay float32.
//  - kBFloat16: the oneDNN GEMM and matmul kernels convert their operands to bfloat16
//    (weights once, when the node is prepared) and accumulate into float32 outputs.
//  - kInt8: GEMMs whose B operand is a weight (linear, addmm, mm) use int8 weights, symmetric
//    per output channel (core/quantize.h; from an int8 weight file, or quantized when the
//    node is prepared), and quantize A per run (asymmetric uint8, one scale and zero point per
//    tensor); int32 accumulation, float32 output. A weight stored int8 runs this way in any
//    precision.
// Kernels without such a path ignore it and compute in float32.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"

namespace tir {

enum class Precision : uint8_t { kFloat32, kBFloat16, kInt8 };

/// "f32", "bf16" or "int8" (the `tirrun --dtype` spelling).
constexpr std::string_view precision_name(Precision p) {
  return p == Precision::kBFloat16 ? "bf16" : p == Precision::kInt8 ? "int8" : "f32";
}

/// Parses "f32" / "bf16" / "int8"; anything else is kInvalidArgument naming the accepted
/// values.
inline Result<Precision> precision_from_name(std::string_view name) {
  if (name == "f32") return Precision::kFloat32;
  if (name == "bf16") return Precision::kBFloat16;
  if (name == "int8") return Precision::kInt8;
  return make_error(StatusCode::kInvalidArgument, "unknown compute dtype '", name,
                    "' (expected f32, bf16 or int8)");
}

}  // namespace tir
