#include "runtime/exec/device_uploads.h"

namespace tir {

Result<void*> DeviceUploads::get(Device& device, const void* host, size_t bytes) {
  const Key key{&device, host, bytes};
  if (auto it = entries_.find(key); it != entries_.end()) return it->second;
  TIR_ASSIGN_OR_RETURN(void* data, device.alloc(bytes, 64));
  // Queued in order before any kernel that reads it; no wait needed here.
  const Status s = device.copy_from(data, *cpu_device(), host, bytes);
  if (!s.ok()) {
    device.free(data);
    return s;
  }
  entries_[key] = data;
  bytes_ += bytes;
  return data;
}

void DeviceUploads::clear() {
  for (auto& [key, data] : entries_) std::get<0>(key)->free(data);
  entries_.clear();
  bytes_ = 0;
}

}  // namespace tir
