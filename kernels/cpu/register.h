// The cpu backend's registration: `register_cpu` adds every kernel of kernels/cpu/ (onednn/, int8/,
// eigen/), one function per source file, and then checks that it covered what the op catalogue
// lists for it.
#pragma once

#include "kernels/registry.h"

namespace tir::kernels {

/// Adds the optimized CPU kernels (oneDNN, Eigen) to `registry`.
void register_cpu(KernelRegistry& registry);

// One per source file of kernels/cpu/<concern>/, called by register_cpu.
// eigen/
void register_act_eigen(KernelRegistry& registry);
void register_attention_eigen(KernelRegistry& registry);
void register_einsum_eigen(KernelRegistry& registry);
void register_eltwise_eigen(KernelRegistry& registry);
void register_layer_norm_softmax_eigen(KernelRegistry& registry);
void register_norm_eigen(KernelRegistry& registry);
void register_embedding_int8(KernelRegistry& registry);
void register_reduce_eigen(KernelRegistry& registry);
void register_sum_amax_cumsum_eigen(KernelRegistry& registry);
// int8/
void register_int_mm_onednn(KernelRegistry& registry);
void register_quantized_linear_onednn(KernelRegistry& registry);
// onednn/
void register_conv_onednn(KernelRegistry& registry);
void register_gemm_onednn(KernelRegistry& registry);
void register_matmul_onednn(KernelRegistry& registry);
void register_pool_onednn(KernelRegistry& registry);

}  // namespace tir::kernels
