#include "kernels/builtin_kernels.h"

#include "kernels/cpu/register.h"
#include "kernels/reference/register.h"
#include "tir_config.h"
#if TIR_WITH_CUDA
#include "kernels/cuda/register.h"
#endif

namespace tir::kernels {

void register_builtin_kernels(KernelRegistry& registry) {
  register_reference(registry);
  register_cpu(registry);
#if TIR_WITH_CUDA
  cuda::register_cuda(registry);
#endif
}

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry registry = [] {
    KernelRegistry r;
    register_builtin_kernels(r);
    return r;
  }();
  return registry;
}

}  // namespace tir::kernels
