// What the CPU and reference devices share: host memory (aligned_alloc) and synchronous
// copies with memcpy; each adds its kernels.
#pragma once

#include "runtime/devices/device.h"

namespace tir {

/// A device whose memory is host memory. Copies to and from another device work only when
/// that one is host accessible too (a GPU device copies to and from the host itself).
class HostDevice : public Device {
 public:
  DeviceType type() const override { return DeviceType::kCpu; }
  bool host_accessible() const override { return true; }
  Result<void*> alloc(size_t bytes, size_t alignment) override;
  void free(void* ptr) override;
  Status copy_from(void* dst, const Device& from, const void* src, size_t bytes) override;
  Status copy_to(void* dst, const Device& to, const void* src, size_t bytes) override;
  Status synchronize() override { return ok_status(); }
};

}  // namespace tir
