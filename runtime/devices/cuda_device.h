// The CUDA device inside the CUDA module (compiled with the kernels of kernels/cuda/ into
// libtir_cuda.so; the runtime reaches it through runtime/devices/cuda_loader.h only).
#pragma once

#include <memory>

#include "core/status.h"
#include "kernels/registry.h"
#include "runtime/devices/device.h"

namespace tir {

/// A device for GPU `index` whose kernels are the CUDA entries of `kernels` (which must
/// outlive it); an error names why none is usable (no driver, no GPU, index out of range).
Result<std::shared_ptr<Device>> cuda_device_create(int index,
                                                   const kernels::KernelRegistry& kernels);

}  // namespace tir
