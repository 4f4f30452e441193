// The activation epilogue of fused producers (KernelCall::epilogue): its name and the plain
// loop every non-oneDNN path applies, so a fused node computes the same values whichever
// kernel runs it.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernels/kernel.h"

namespace tir::kernels {

/// "relu", "gelu", "gelu_tanh", ...; "" for kNone. Used in profile labels ("aten::addmm+gelu").
std::string_view activation_name(Activation act);

/// Applies `act` in place to `n` contiguous floats (in double, like the reference kernels).
void apply_activation(Activation act, float* data, int64_t n);

}  // namespace tir::kernels
