// The backends built into this library, as one call (KernelRegistry::global() makes it).
#pragma once

#include "kernels/registry.h"

namespace tir::kernels {

/// Adds the reference and CPU kernels and, in a build with CUDA, the CUDA kernels.
void register_builtin_kernels(KernelRegistry& registry);

}  // namespace tir::kernels
