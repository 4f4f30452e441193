// What runtime/devices/device.h declares beside the interface; the devices themselves are in
// runtime/devices/.
#include "runtime/devices/device.h"

namespace tir {

std::shared_ptr<const kernels::KernelRegistry> global_registry() {
  return std::shared_ptr<const kernels::KernelRegistry>(std::shared_ptr<void>(),
                                                        &kernels::KernelRegistry::global());
}

Precision devices_precision(std::span<const std::shared_ptr<Device>> devices, Precision asked) {
  if (devices.empty()) return cpu_device()->precision(asked);
  // From the last device (the one placement prefers: the GPU beside the CPU) to the first,
  // so that only the device that lowers the precision first says so.
  Precision p = asked;
  for (auto d = devices.rbegin(); d != devices.rend(); ++d) p = (*d)->precision(p);
  return p;
}

}  // namespace tir
