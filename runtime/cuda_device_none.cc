// make_cuda_device for builds without CUDA (meson -Dcuda=disabled or no toolkit found).
#include "runtime/cuda_device.h"

namespace tir {

bool cuda_built() { return false; }

Result<std::shared_ptr<Device>> make_cuda_device(int index) {
  (void)index;
  return make_error(StatusCode::kUnsupported,
                    "device 'cuda': this tir was built without CUDA (configure with "
                    "-Dcuda=enabled and the CUDA toolkit installed)");
}

}  // namespace tir
