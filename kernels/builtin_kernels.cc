#include "kernels/builtin_kernels.h"

#include "kernels/cpu/register.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void register_builtin_kernels(KernelRegistry& registry) {
  register_reference(registry);
  register_cpu(registry);
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
