// The reference backend's registration: `register_reference` adds every kernel of
// kernels/reference/, one function per source file, and then checks that it covered what the op
// catalogue lists for it.
#pragma once

#include "kernels/registry.h"

namespace tir::kernels {

/// Adds the reference kernels (plain loops, the oracle of every test) to `registry`.
void register_reference(KernelRegistry& registry);

// One per source file of kernels/reference/<family>/, called by register_reference.
// unary/
void register_activation_ref(KernelRegistry& registry);
void register_data_dependent_ref(KernelRegistry& registry);
void register_bincount_ref(KernelRegistry& registry);
void register_dropout_ref(KernelRegistry& registry);
void register_math_ref(KernelRegistry& registry);
void register_special_ref(KernelRegistry& registry);
// binary/
void register_arithmetic_ref(KernelRegistry& registry);
void register_logic_ref(KernelRegistry& registry);
// reduction/
void register_any_diff_ref(KernelRegistry& registry);
void register_histc_ref(KernelRegistry& registry);
void register_loss_ref(KernelRegistry& registry);
void register_class_loss_ref(KernelRegistry& registry);
void register_mean_ref(KernelRegistry& registry);
void register_reduction_ref(KernelRegistry& registry);
void register_sum_amax_cumsum_ref(KernelRegistry& registry);
// normalization/
void register_batch_norm_ref(KernelRegistry& registry);
void register_group_norm_ref(KernelRegistry& registry);
void register_layer_norm_ref(KernelRegistry& registry);
void register_norm_stats_ref(KernelRegistry& registry);
// softmax/
void register_softmax_ref(KernelRegistry& registry);
// linear_algebra/
void register_attention_ref(KernelRegistry& registry);
void register_distance_ref(KernelRegistry& registry);
void register_einsum_ref(KernelRegistry& registry);
void register_contraction_ref(KernelRegistry& registry);
void register_similarity_ref(KernelRegistry& registry);
void register_gated_ref(KernelRegistry& registry);
void register_rnn_ref(KernelRegistry& registry);
void register_gemm_ref(KernelRegistry& registry);
void register_int_mm_ref(KernelRegistry& registry);
void register_matmul_ref(KernelRegistry& registry);
// convolution/
void register_col2im_ref(KernelRegistry& registry);
void register_conv_ref(KernelRegistry& registry);
void register_conv_transpose_ref(KernelRegistry& registry);
// pooling/
void register_avg_pool_ref(KernelRegistry& registry);
void register_pool_ref(KernelRegistry& registry);
void register_pool3d_ref(KernelRegistry& registry);
// resampling/
void register_grid_sample_ref(KernelRegistry& registry);
void register_upsample_ref(KernelRegistry& registry);
// movement/
void register_convert_ref(KernelRegistry& registry);
void register_copy_ref(KernelRegistry& registry);
void register_movement_ref(KernelRegistry& registry);
void register_shape_ref(KernelRegistry& registry);
// indexing/
void register_embedding_ref(KernelRegistry& registry);
void register_embedding_bag_ref(KernelRegistry& registry);
void register_index_ref(KernelRegistry& registry);
void register_masked_fill_ref(KernelRegistry& registry);
void register_scatter_ref(KernelRegistry& registry);
void register_scatter_dim_ref(KernelRegistry& registry);
// creation/
void register_creation_ref(KernelRegistry& registry);
void register_pattern_ref(KernelRegistry& registry);
void register_random_ref(KernelRegistry& registry);
// sort_select/
void register_sort_ref(KernelRegistry& registry);
void register_select_ref(KernelRegistry& registry);
void register_search_ref(KernelRegistry& registry);
// quantization/
void register_affine_quantize_ref(KernelRegistry& registry);
void register_quantize_ref(KernelRegistry& registry);
void register_quantized_linear_ref(KernelRegistry& registry);
// assertion/
void register_assertion_ref(KernelRegistry& registry);

// complex/
void register_complex_ref(KernelRegistry& registry);
// spectral/
void register_fft_ref(KernelRegistry& registry);
void register_stft_ref(KernelRegistry& registry);
// movement/ (unfold)
void register_unfold_ref(KernelRegistry& registry);

}  // namespace tir::kernels
