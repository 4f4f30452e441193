// What the runtime's CPU device needs from the CPU kernel library, without oneDNN headers:
// a fresh context (engine + per-thread streams) that the device owns and passes to its calls.
#pragma once

#include <memory>

#include "kernels/kernel.h"

namespace tir::kernels {

/// A new oneDNN CPU context (kernels/cpu/onednn/onednn_context.h). Thread-safe to use from any
/// thread.
std::unique_ptr<DeviceContext> make_cpu_context();

}  // namespace tir::kernels
