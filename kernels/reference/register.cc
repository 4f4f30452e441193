#include "kernels/reference/register.h"

namespace tir::kernels {

void register_reference(KernelRegistry& registry) {
  register_activation_ref(registry);
  register_dropout_ref(registry);
  register_math_ref(registry);
  register_special_ref(registry);
  register_arithmetic_ref(registry);
  register_logic_ref(registry);
  register_any_diff_ref(registry);
  register_histc_ref(registry);
  register_loss_ref(registry);
  register_class_loss_ref(registry);
  register_mean_ref(registry);
  register_reduction_ref(registry);
  register_sum_amax_cumsum_ref(registry);
  register_batch_norm_ref(registry);
  register_group_norm_ref(registry);
  register_layer_norm_ref(registry);
  register_norm_stats_ref(registry);
  register_softmax_ref(registry);
  register_attention_ref(registry);
  register_distance_ref(registry);
  register_einsum_ref(registry);
  register_contraction_ref(registry);
  register_similarity_ref(registry);
  register_gated_ref(registry);
  register_rnn_ref(registry);
  register_gemm_ref(registry);
  register_int_mm_ref(registry);
  register_matmul_ref(registry);
  register_col2im_ref(registry);
  register_conv_ref(registry);
  register_conv_transpose_ref(registry);
  register_avg_pool_ref(registry);
  register_pool_ref(registry);
  register_pool3d_ref(registry);
  register_grid_sample_ref(registry);
  register_upsample_ref(registry);
  register_convert_ref(registry);
  register_copy_ref(registry);
  register_movement_ref(registry);
  register_shape_ref(registry);
  register_embedding_ref(registry);
  register_embedding_bag_ref(registry);
  register_index_ref(registry);
  register_data_dependent_ref(registry);
  register_bincount_ref(registry);
  register_masked_fill_ref(registry);
  register_scatter_ref(registry);
  register_scatter_dim_ref(registry);
  register_creation_ref(registry);
  register_pattern_ref(registry);
  register_random_ref(registry);
  register_sort_ref(registry);
  register_select_ref(registry);
  register_search_ref(registry);
  register_affine_quantize_ref(registry);
  register_quantize_ref(registry);
  register_quantized_linear_ref(registry);
  register_assertion_ref(registry);
  register_complex_ref(registry);
  register_fft_ref(registry);
  register_stft_ref(registry);
  register_unfold_ref(registry);
  registry.check_complete(Backend::kReference);
}

}  // namespace tir::kernels
