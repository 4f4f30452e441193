// Device: where a node runs and its values live (the shared design's device interface, after
// ggml's backend and TVM's DeviceAPI). A device allocates and frees its memory, copies
// between itself and other devices, synchronizes, says which (op, dtype) it runs, and owns
// the handles its kernels use (kernels::DeviceContext: the oneDNN engine and streams of a CPU
// device), so no kernel reaches for a process global.
//
// The implementations live together in runtime/devices/:
//  - CpuDevice (cpu_device.cc): the optimized CPU kernels (oneDNN, Eigen), falling back to
//    the reference kernel of an op that has no optimized one. `cpu_device()` is the process
//    default.
//  - ReferenceDevice (reference_device.cc): the reference kernels only (plain loops), in
//    memory of its own. It proves the seam: a test places nodes on it and on the CPU device
//    alternately, the placement pass (runtime/passes/placement.h) inserts copies where values
//    cross, and results must not change.
//  - CudaDevice (cuda_device.cc): compiled into the CUDA module libtir_cuda.so, which the
//    runtime loads only when a CUDA device is asked for (runtime/devices/cuda_loader.h).
// The CPU and reference devices find kernels in the registry they were made with
// (KernelRegistry::global() unless an application passes one with a subset); the CUDA device
// in the registry its module fills.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/precision.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/registry.h"

namespace tir {

class Device {
 public:
  virtual ~Device() = default;
  /// For messages and load summaries: "cpu", "reference".
  virtual std::string_view name() const = 0;
  virtual DeviceType type() const = 0;
  /// True when the host can read and write this device's memory directly (so weights in a
  /// mapped file and the caller's input buffers need no copy to be used here).
  virtual bool host_accessible() const = 0;

  /// `bytes` of device memory aligned to `alignment` (a power of two, >= 64); freed with
  /// free(). An error names the device and the size.
  virtual Result<void*> alloc(size_t bytes, size_t alignment) = 0;
  virtual void free(void* ptr) = 0;
  /// Copies `bytes` from `src` (memory of `from`) to `dst` (memory of this device).
  virtual Status copy_from(void* dst, const Device& from, const void* src, size_t bytes) = 0;
  /// Copies `bytes` from `src` (memory of this device) to `dst` (memory of `to`). A copy
  /// between a host-addressable device and one that is not runs on the latter.
  virtual Status copy_to(void* dst, const Device& to, const void* src, size_t bytes) = 0;
  /// Waits until work queued on the device is done (CPU devices run synchronously).
  virtual Status synchronize() = 0;

  /// The kernel this device runs `op` with for inputs of `dtype`, or nullptr.
  virtual const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const = 0;
  bool supports(std::string_view op, DType dtype) const {
    return find_kernel(op, dtype) != nullptr;
  }
  /// True when this device has a kernel for `op` for some dtype (so an error can say that
  /// the dtype, not the op, is what it lacks).
  virtual bool supports_op(std::string_view op) const = 0;
  /// The precision this device computes in when `asked` is (core/precision.h): `asked`, or
  /// the nearest it has (float32). May say once on stderr why it differs.
  virtual Precision precision(Precision asked) const = 0;
  /// Handles passed to every kernel call on this device (may be null).
  virtual kernels::DeviceContext* context() = 0;
};

/// A new optimized CPU device with its own oneDNN engine. Its kernels run on the OpenMP
/// threads oneDNN uses (Debian's oneDNN is built for OpenMP), set by set_num_threads /
/// OMP_NUM_THREADS; they wait between ops as libgomp's default policy says (spin, then sleep),
/// which measured as fast as OMP_WAIT_POLICY=active and 1.7x faster than passive on
/// MobileNetV3 (docs/design.md, "How tir is fast on CPU").
/// Its kernels come from `registry` (null: KernelRegistry::global()); an application that
/// embeds tir may fill one with a subset (kernels/registry.h), kept alive by the device.
std::shared_ptr<Device> make_cpu_device(
    std::shared_ptr<const kernels::KernelRegistry> registry = nullptr);
/// The process's default CPU device, made on first use (every Session without a device of its
/// own shares it, so one engine serves them).
const std::shared_ptr<Device>& cpu_device();
/// A new device that runs only reference kernels (of `registry`; null: the global one), in
/// host memory of its own.
std::shared_ptr<Device> make_reference_device(
    std::shared_ptr<const kernels::KernelRegistry> registry = nullptr);
/// KernelRegistry::global() as a shared pointer that owns nothing.
std::shared_ptr<const kernels::KernelRegistry> global_registry();

/// The precision a session on `devices` computes in when `asked` is: one that every device
/// offers (each may lower it to float32). No devices: the process CPU device's answer.
Precision devices_precision(std::span<const std::shared_ptr<Device>> devices, Precision asked);

}  // namespace tir
