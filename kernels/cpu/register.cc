#include "kernels/cpu/register.h"

namespace tir::kernels {

void register_cpu(KernelRegistry& registry) {
  register_act_eigen(registry);
  register_attention_eigen(registry);
  register_einsum_eigen(registry);
  register_embedding_int8(registry);
  register_conv_onednn(registry);
  register_eltwise_eigen(registry);
  register_gemm_onednn(registry);
  register_int_mm_onednn(registry);
  register_layer_norm_softmax_eigen(registry);
  register_matmul_onednn(registry);
  register_norm_eigen(registry);
  register_pool_onednn(registry);
  register_quantized_linear_onednn(registry);
  register_reduce_eigen(registry);
  register_sum_amax_cumsum_eigen(registry);
  registry.check_complete(Backend::kCpu);
}

}  // namespace tir::kernels
