#include "runtime/device.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/cpu_context.h"

namespace tir {
namespace {

using kernels::KernelImpl;
using kernels::KernelRegistry;

/// Host memory, synchronous copies: what both CPU devices share.
class HostDevice : public Device {
 public:
  DeviceType type() const override { return DeviceType::kCpu; }
  bool host_accessible() const override { return true; }
  Result<void*> alloc(size_t bytes, size_t alignment) override {
    if (bytes > SIZE_MAX - 2 * alignment)
      return make_error(StatusCode::kInvalidArgument, "device '", name(), "': cannot allocate ",
                        bytes, " bytes");
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment + alignment;
    void* p = std::aligned_alloc(alignment, rounded);
    if (!p)
      return make_error(StatusCode::kInternal, "device '", name(), "': cannot allocate ", bytes,
                        " bytes");
    return p;
  }
  void free(void* ptr) override { std::free(ptr); }
  Status copy_from(void* dst, const Device& from, const void* src, size_t bytes) override {
    if (!from.host_accessible())
      return make_error(StatusCode::kUnsupported, "device '", name(), "': cannot copy from '",
                        from.name(), "'");
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return ok_status();
  }
  Status copy_to(void* dst, const Device& to, const void* src, size_t bytes) override {
    if (!to.host_accessible())
      return make_error(StatusCode::kUnsupported, "device '", name(), "': cannot copy to '",
                        to.name(), "'");
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return ok_status();
  }
  Status synchronize() override { return ok_status(); }
};

class CpuDevice final : public HostDevice {
 public:
  CpuDevice() : context_(kernels::make_cpu_context()) {}
  std::string_view name() const override { return "cpu"; }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    return KernelRegistry::global().find(op, DeviceType::kCpu, dtype, KernelImpl::kOptimized);
  }
  kernels::DeviceContext* context() override { return context_.get(); }

 private:
  std::unique_ptr<kernels::DeviceContext> context_;
};

class ReferenceDevice final : public HostDevice {
 public:
  std::string_view name() const override { return "reference"; }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    const KernelRegistry& r = KernelRegistry::global();
    const kernels::KernelEntry* exact =
        r.find_exact(op, DeviceType::kCpu, dtype, KernelImpl::kReference);
    return exact ? exact
                 : r.find_exact(op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference);
  }
  kernels::DeviceContext* context() override { return nullptr; }
};

}  // namespace

std::shared_ptr<Device> make_cpu_device() { return std::make_shared<CpuDevice>(); }

const std::shared_ptr<Device>& cpu_device() {
  static const std::shared_ptr<Device> device = make_cpu_device();
  return device;
}

std::shared_ptr<Device> make_reference_device() { return std::make_shared<ReferenceDevice>(); }

}  // namespace tir
