#include "runtime/devices/host_device.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tir {

Result<void*> HostDevice::alloc(size_t bytes, size_t alignment) {
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

void HostDevice::free(void* ptr) { std::free(ptr); }

Status HostDevice::copy_from(void* dst, const Device& from, const void* src, size_t bytes) {
  if (!from.host_accessible())
    return make_error(StatusCode::kUnsupported, "device '", name(), "': cannot copy from '",
                      from.name(), "'");
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return ok_status();
}

Status HostDevice::copy_to(void* dst, const Device& to, const void* src, size_t bytes) {
  if (!to.host_accessible())
    return make_error(StatusCode::kUnsupported, "device '", name(), "': cannot copy to '",
                      to.name(), "'");
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return ok_status();
}

}  // namespace tir
