// The optimized CPU device: oneDNN and Eigen kernels from its registry (by default
// KernelRegistry::global()), the reference kernel where an op has no optimized one, a oneDNN
// context of its own.
#include "kernels/cpu/cpu_context.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "runtime/devices/host_device.h"

namespace tir {
namespace {

using kernels::KernelImpl;
using kernels::KernelRegistry;

class CpuDevice final : public HostDevice {
 public:
  explicit CpuDevice(std::shared_ptr<const KernelRegistry> registry)
      : registry_(std::move(registry)), context_(kernels::make_cpu_context()) {}
  std::string_view name() const override { return "cpu"; }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    return registry_->find(op, DeviceType::kCpu, dtype, KernelImpl::kOptimized);
  }
  bool supports_op(std::string_view op) const override {
    return registry_->has_op(op, DeviceType::kCpu);
  }
  Precision precision(Precision asked) const override { return kernels::cpu_precision(asked); }
  kernels::DeviceContext* context() override { return context_.get(); }

 private:
  std::shared_ptr<const KernelRegistry> registry_;
  std::unique_ptr<kernels::DeviceContext> context_;
};

}  // namespace

std::shared_ptr<Device> make_cpu_device(std::shared_ptr<const kernels::KernelRegistry> registry) {
  return std::make_shared<CpuDevice>(registry ? std::move(registry) : global_registry());
}

const std::shared_ptr<Device>& cpu_device() {
  static const std::shared_ptr<Device> device = make_cpu_device();
  return device;
}

}  // namespace tir
