// The backends built into this library, as one call (KernelRegistry::global() makes it). The
// CUDA kernels are not among them: they live in the CUDA module, which fills a registry of
// its own (runtime/devices/cuda_backend.h).
#pragma once

#include "kernels/registry.h"

namespace tir::kernels {

/// Adds the reference and CPU kernels.
void register_builtin_kernels(KernelRegistry& registry);

}  // namespace tir::kernels
