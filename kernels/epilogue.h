// The activation epilogue of fused producers (KernelCall::epilogue): its name and the plain
// loop every non-oneDNN path applies, so a fused node computes the same values whichever
// kernel runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "kernels/kernel.h"

namespace tir::kernels {

/// "relu", "gelu", "gelu_tanh", ...; "" for a kind that is not fusable_as_epilogue. Used in
/// profile labels ("aten::addmm+gelu").
std::string_view activation_name(ops::UnaryKind act);

/// Applies `act` in place to `n` contiguous floats (in double, like the reference kernels);
/// nothing for std::nullopt.
void apply_activation(std::optional<ops::UnaryKind> act, float* data, int64_t n);

}  // namespace tir::kernels
