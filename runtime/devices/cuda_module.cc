// The CUDA module's entry point (runtime/devices/cuda_backend.h): its table, with the CUDA
// kernels registered once into a registry of the module's own (never the process's global
// one, which other threads may be reading) and devices made from it.
#include "core/version.h"
#include "kernels/cuda/register.h"
#include "runtime/devices/cuda_backend.h"
#include "runtime/devices/cuda_device.h"

namespace tir {
namespace {

/// Filled on first use (thread-safe static initialisation), read-only afterwards.
const kernels::KernelRegistry& cuda_kernels() {
  static const kernels::KernelRegistry registry = [] {
    kernels::KernelRegistry r;
    kernels::cuda::register_cuda(r);
    return r;
  }();
  return registry;
}

Result<std::shared_ptr<Device>> make_device(int index) {
  TIR_RETURN_IF_ERROR(cuda_kernels().registration_status());
  return cuda_device_create(index, cuda_kernels());
}

}  // namespace
}  // namespace tir

extern "C" __attribute__((visibility("default"))) const tir::CudaBackendTable*
tir_cuda_backend_v1() {
  static const tir::CudaBackendTable table = {tir::kCudaBackendAbi, tir::version_string(),
                                              &tir::cuda_kernels(), &tir::make_device};
  return &table;
}
