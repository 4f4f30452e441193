// The precision GEMM-class kernels compute in. The graph and every tensor between kernels
// stay float32; with kBFloat16 the oneDNN GEMM and matmul kernels convert their operands to
// bfloat16 (weights once, when the node is prepared) and accumulate into float32 outputs.
// Kernels without a bf16 path ignore it and compute in float32.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/status.h"

namespace tir {

enum class Precision : uint8_t { kFloat32, kBFloat16 };

/// "f32" or "bf16" (the `tirrun --dtype` spelling).
constexpr std::string_view precision_name(Precision p) {
  return p == Precision::kBFloat16 ? "bf16" : "f32";
}

/// Parses "f32" / "bf16"; anything else is kInvalidArgument naming the accepted values.
inline Result<Precision> precision_from_name(std::string_view name) {
  if (name == "f32") return Precision::kFloat32;
  if (name == "bf16") return Precision::kBFloat16;
  return make_error(StatusCode::kInvalidArgument, "unknown compute dtype '", name,
                    "' (expected f32 or bf16)");
}

}  // namespace tir
