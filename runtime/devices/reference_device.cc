// The reference device: only the reference kernels (plain loops) of its registry (by default
// KernelRegistry::global()), in host memory of its own; no context.
#include "runtime/devices/host_device.h"

namespace tir {
namespace {

using kernels::KernelImpl;
using kernels::KernelRegistry;

class ReferenceDevice final : public HostDevice {
 public:
  explicit ReferenceDevice(std::shared_ptr<const KernelRegistry> registry)
      : registry_(std::move(registry)) {}
  std::string_view name() const override { return "reference"; }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    const KernelRegistry& r = *registry_;
    const kernels::KernelEntry* exact =
        r.find_exact(op, DeviceType::kCpu, dtype, KernelImpl::kReference);
    return exact ? exact
                 : r.find_exact(op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference);
  }
  bool supports_op(std::string_view op) const override {
    return registry_->has_op(op, DeviceType::kCpu);
  }
  /// Reference kernels have no low-precision path and compute float32 whatever is asked;
  /// they leave the choice to the other devices of a session (a session on the reference
  /// device alone computes exactly what a CPU session would be asked for).
  Precision precision(Precision asked) const override { return asked; }
  kernels::DeviceContext* context() override { return nullptr; }

 private:
  std::shared_ptr<const KernelRegistry> registry_;
};

}  // namespace

std::shared_ptr<Device> make_reference_device(
    std::shared_ptr<const kernels::KernelRegistry> registry) {
  return std::make_shared<ReferenceDevice>(registry ? std::move(registry) : global_registry());
}

}  // namespace tir
