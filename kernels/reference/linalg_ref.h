// Run functions of the reference matmul and attention kernels; the optimized kernels call
// them for the cases they do not accelerate (empty dims).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/attention_shapes.h"
#include "kernels/shapes/matmul_shapes.h"

namespace tir::kernels {

void ref_matmul(const MatmulParams& p, const KernelCall& call, void* scratch);
/// Needs attention_ref_scratch_bytes(p) of scratch (set by the shared prepare).
void ref_sdpa(const AttentionParams& p, const KernelCall& call, void* scratch);

}  // namespace tir::kernels
