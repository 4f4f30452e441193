// The interface between libtir and the CUDA module (libtir_cuda.so), which the runtime
// dlopens only when a CUDA device is asked for (runtime/devices/cuda_loader.h), so that a
// CPU-only process maps no CUDA library. The module exports one C symbol,
// `tir_cuda_backend_v1`, returning a table that makes devices and holds their kernels.
//
// The table's first two fields are plain C and checked before anything else is read: the
// rest passes C++ types (Device, Result, KernelRegistry), which is sound only between a
// module and a runtime of the same tir build, compiled with the same compiler and flags. The
// module carries its own copies of the code it uses (core, the op catalogue, the registry,
// the shape functions), every symbol but the entry point hidden, so it binds to nothing of
// the process that loads it but libstdc++ and the CUDA libraries.
#pragma once

#include <cstdint>
#include <memory>

#include "core/status.h"
#include "kernels/registry.h"
#include "runtime/devices/device.h"

namespace tir {

/// Bumped whenever CudaBackendTable or a type it passes changes.
inline constexpr uint32_t kCudaBackendAbi = 1;
/// The entry point's name, for dlsym.
inline constexpr const char* kCudaBackendEntry = "tir_cuda_backend_v1";

/// What the module supplies. Static data of the module: it lives as long as the module, which
/// is never unloaded.
struct CudaBackendTable {
  uint32_t abi;             // kCudaBackendAbi of the module
  const char* tir_version;  // version_string() of the build the module came from
  /// The CUDA kernels (register_cuda), filled once when the module is loaded; read-only
  /// afterwards, so any thread may read it.
  const kernels::KernelRegistry* kernels;
  /// A device for GPU `index` (its kernels from `kernels`); an error names why none is
  /// usable (no driver, no GPU, index out of range). Thread-safe.
  Result<std::shared_ptr<Device>> (*make_device)(int index);
};

}  // namespace tir

/// The module's one exported symbol: its table (never null).
extern "C" const tir::CudaBackendTable* tir_cuda_backend_v1();
