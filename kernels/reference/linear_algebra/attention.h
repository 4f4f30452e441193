// Run function of the reference scaled-dot-product attention kernel (attention.cc).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/linear_algebra/attention.h"

namespace tir::kernels {

/// Needs attention_ref_scratch_bytes(p) of scratch (set by the shared prepare).
void ref_sdpa(const AttentionParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
