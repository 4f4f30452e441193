// The kernel registry: which kernel runs an op on a device for a dtype. The op catalogue
// (kernels/ops/catalogue.h) is the list of ops; each backend adds its kernels explicitly
// (register_reference, register_cpu, register_cuda), and the registry checks every kernel
// against its catalogue row. An application may fill a registry of its own with a subset.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/ops/catalogue.h"

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
  /// What the passes may ask of this kernel: its catalogue row's capabilities as its backend
  /// offers them (OpRow::caps_on). The registry fills it in `add`.
  OpCaps caps = {};
  /// Set for a custom op's kernel (add_custom) instead of `factory`: it may hold state (a C
  /// callback's user pointer).
  std::shared_ptr<const std::function<std::unique_ptr<Kernel>()>> custom_factory;

  Backend backend() const { return backend_of(device, impl == KernelImpl::kOptimized); }
  /// A new kernel instance (one per node and shape plan).
  std::unique_ptr<Kernel> make() const { return custom_factory ? (*custom_factory)() : factory(); }
};

/// A kernel an application supplies for a custom op (kernels::is_custom_op: a namespace of its
/// own, such as a torch.library op "mylib::scaled_add"). Its `prepare` fills every output's
/// dtype and shape from the inputs (the shape function), `run` computes; it reads arguments by
/// name (find_arg: the node holds those the program gave, in the order it gave them), its
/// inputs are contiguous CPU tensors.
struct CustomKernel {
  std::string op;  // "mylib::scaled_add", or "mylib::op.overload" for a non-default overload
  /// The dtypes of the first tensor input it takes; empty: any. A node of another dtype is an
  /// open error naming node, op and dtype.
  std::vector<DType> dtypes;
  /// Makes one kernel per node and shape plan; called from the thread that opens a session or
  /// plans a new shape, so it must be safe to call from several threads.
  std::function<std::unique_ptr<Kernel>()> make;
};

class KernelRegistry {
 public:
  /// The process-wide registry of the reference and CPU kernels, filled on first use
  /// (register_builtin_kernels, kernels/builtin_kernels.cc) and never changed afterwards.
  /// Thread-safe to read. The CUDA kernels are in the CUDA module's own registry.
  static KernelRegistry& global();

  /// Adds entries and gives each its capabilities from the catalogue. An entry whose op has
  /// no catalogue row, whose dtype the row does not list for the entry's backend, or that
  /// repeats an (op, device, dtype, impl) is recorded as a registration error (see
  /// `registration_status`) and ignored.
  void add(std::initializer_list<KernelEntry> entries);
  /// Records a registration error for every (op, dtype) the catalogue lists for `backend`
  /// that has no entry: a backend calls it after adding its kernels.
  void check_complete(Backend backend);
  /// Adds a custom op's kernel: the sanctioned path for ops the catalogue does not list. It
  /// runs on the CPU and reference devices (as a reference kernel: plain host code, no
  /// capabilities). Errors (not recorded): an op that is not custom (an ATen op goes through
  /// the catalogue), no `make`, or an (op, dtype) already registered.
  Status add_custom(CustomKernel kernel);

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
  /// Error describing every registration error, ok otherwise.
  Status registration_status() const;

 private:
  std::vector<KernelEntry> entries_;
  std::vector<std::string> errors_;
};

/// Helper for `KernelFactory`: `&make_kernel<ReluKernel>`.
template <typename K>
std::unique_ptr<Kernel> make_kernel() {
  return std::make_unique<K>();
}

}  // namespace tir::kernels
