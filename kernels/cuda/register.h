// The cuda backend's registration: `register_cuda` adds every kernel of kernels/cuda/, one
// function per source file, and then checks that it covered what the op catalogue lists for it.
#pragma once

#include "kernels/registry.h"

namespace tir::kernels::cuda {

/// Adds the CUDA kernels (cuBLAS and tir's own) to `registry`.
void register_cuda(KernelRegistry& registry);

// One per source file of kernels/cuda/, called by register_cuda.
void register_copy_cuda(KernelRegistry& registry);
void register_eltwise_cuda(KernelRegistry& registry);
void register_gemm_cublas(KernelRegistry& registry);
void register_norm_cuda(KernelRegistry& registry);

}  // namespace tir::kernels::cuda
