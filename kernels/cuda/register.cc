#include "kernels/cuda/register.h"

namespace tir::kernels::cuda {

void register_cuda(KernelRegistry& registry) {
  register_copy_cuda(registry);
  register_eltwise_cuda(registry);
  register_gemm_cublas(registry);
  register_norm_cuda(registry);
  registry.check_complete(Backend::kCuda);
}

}  // namespace tir::kernels::cuda
