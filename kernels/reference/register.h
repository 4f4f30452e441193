// The reference backend's registration: `register_reference` adds every kernel of
// kernels/reference/, one function per source file, and then checks that it covered what the op
// catalogue lists for it.
#pragma once

#include "kernels/registry.h"

namespace tir::kernels {

/// Adds the reference kernels (plain loops, the oracle of every test) to `registry`.
void register_reference(KernelRegistry& registry);

// One per source file of kernels/reference/, called by register_reference.
void register_act_ref(KernelRegistry& registry);
void register_attention_ref(KernelRegistry& registry);
void register_col2im_ref(KernelRegistry& registry);
void register_conv_ref(KernelRegistry& registry);
void register_copy_ref(KernelRegistry& registry);
void register_creation_ref(KernelRegistry& registry);
void register_distance_ref(KernelRegistry& registry);
void register_eltwise_ref(KernelRegistry& registry);
void register_embedding_bag_ref(KernelRegistry& registry);
void register_embedding_ref(KernelRegistry& registry);
void register_gemm_ref(KernelRegistry& registry);
void register_grid_sample_ref(KernelRegistry& registry);
void register_index_ref(KernelRegistry& registry);
void register_layer_norm_softmax_ref(KernelRegistry& registry);
void register_logic_ref(KernelRegistry& registry);
void register_math_ref(KernelRegistry& registry);
void register_matmul_ref(KernelRegistry& registry);
void register_misc_ref(KernelRegistry& registry);
void register_movement_ref(KernelRegistry& registry);
void register_norm_ref(KernelRegistry& registry);
void register_norm_stats_ref(KernelRegistry& registry);
void register_pool3d_ref(KernelRegistry& registry);
void register_pool_ref(KernelRegistry& registry);
void register_quantize_ref(KernelRegistry& registry);
void register_quantized_linear_ref(KernelRegistry& registry);
void register_reduce_ref(KernelRegistry& registry);
void register_reduction_ref(KernelRegistry& registry);
void register_scatter_dim_ref(KernelRegistry& registry);
void register_scatter_ref(KernelRegistry& registry);
void register_shape_ref(KernelRegistry& registry);
void register_sort_ref(KernelRegistry& registry);
void register_spatial_ref(KernelRegistry& registry);
void register_sum_amax_cumsum_ref(KernelRegistry& registry);

}  // namespace tir::kernels
