// Weights and constants uploaded once to a device the host cannot address (a GPU). The
// placement pass puts a copy in front of every reader of host bytes on such a device; a plan
// resolves the copies of weights and constants that nothing writes through this cache, so
// their bytes cross once per executor and weight set (not once per run) and take no room in
// the activation arena. The executor clears it when its weights are rebound (a swap).
#pragma once

#include <cstddef>
#include <map>
#include <tuple>

#include "core/status.h"
#include "runtime/devices/device.h"

namespace tir {

class DeviceUploads {
 public:
  DeviceUploads() = default;
  DeviceUploads(const DeviceUploads&) = delete;
  DeviceUploads& operator=(const DeviceUploads&) = delete;
  ~DeviceUploads() { clear(); }

  /// `device`'s copy of the `bytes` at `host`, uploaded (and waited for) on first use.
  Result<void*> get(Device& device, const void* host, size_t bytes);
  /// Frees every copy.
  void clear();
  /// Bytes held on devices.
  size_t bytes() const { return bytes_; }

 private:
  using Key = std::tuple<Device*, const void*, size_t>;  // device, host bytes, their size
  std::map<Key, void*> entries_;
  size_t bytes_ = 0;
};

}  // namespace tir
