// The kernel registry: the only list of ops tir supports. Kernel files register
// themselves at static-initialisation time; the library is linked whole so none is dropped.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

/// Reference kernels are plain loops, the oracle for tests; optimized ones use oneDNN,
/// Eigen or CUDA. The runtime prefers optimized when both exist.
enum class KernelImpl : uint8_t { kReference = 0, kOptimized = 1 };

using KernelFactory = std::unique_ptr<Kernel> (*)();

struct KernelEntry {
  std::string op;     // "aten::relu", "aten::add.Tensor"
  DeviceType device;  // kCpu, kCuda
  DType dtype;        // dtype of the first tensor input; kUndefined = any dtype
  KernelImpl impl;
  KernelFactory factory;
};

class KernelRegistry {
 public:
  /// The process-wide registry. Thread-safe to read after static initialisation.
  static KernelRegistry& global();

  /// Adds entries; a second entry with the same (op, device, dtype, impl) is recorded as
  /// a registration error (see `registration_status`) and ignored.
  bool add(std::initializer_list<KernelEntry> entries);

  /// The kernel for `op` on `device` for inputs of `dtype`: an exact dtype beats "any",
  /// and `preferred` beats the other impl. nullptr when none exists.
  const KernelEntry* find(std::string_view op, DeviceType device, DType dtype,
                          KernelImpl preferred = KernelImpl::kOptimized) const;
  /// Exactly this impl, or nullptr (tests use it to pair a kernel with its oracle).
  const KernelEntry* find_exact(std::string_view op, DeviceType device, DType dtype,
                                KernelImpl impl) const;
  /// True when some kernel for `op` exists on `device`, any dtype.
  bool has_op(std::string_view op, DeviceType device) const;

  const std::vector<KernelEntry>& entries() const { return entries_; }
  /// Error describing duplicate registrations, ok otherwise.
  Status registration_status() const;

 private:
  std::vector<KernelEntry> entries_;
  std::vector<std::string> duplicates_;
};

/// Helper for `KernelFactory`: `&make_kernel<ReluKernel>`.
template <typename K>
std::unique_ptr<Kernel> make_kernel() {
  return std::make_unique<K>();
}

}  // namespace tir::kernels
