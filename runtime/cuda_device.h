// The CUDA device (kernels/cuda/cuda_device.cc): GPU memory for activation arenas and
// uploaded weights, copies through pinned staging buffers, one stream, cuBLAS and tir's own
// kernels. `make_cuda_device` fails with one line when tir was built without CUDA
// (-Dcuda=disabled, or no toolkit found) or when no GPU and driver are usable.
#pragma once

#include <memory>

#include "core/status.h"
#include "runtime/device.h"

namespace tir {

/// True when this build has the CUDA device (meson option cuda).
bool cuda_built();

/// The CUDA device for GPU `index`; an error names why none is usable (no driver, no GPU,
/// index out of range).
Result<std::shared_ptr<Device>> make_cuda_device(int index = 0);

}  // namespace tir
