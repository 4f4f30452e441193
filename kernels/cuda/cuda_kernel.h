// A CUDA kernel made of a shared shape function (kernels/shapes/, the same one the CPU
// kernels use, so devices agree on every shape and validation) and a launch function that
// queues the work on the device's stream (kernels/cuda/cuda_context.h).
#pragma once

#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_util.h"

namespace tir::kernels::cuda {

/// The CUDA context of a call, its GPU made current for the calling thread; an error when
/// the call comes from elsewhere (a kernel test that did not pass the device's context).
inline Result<CudaContext*> cuda_context(const KernelCall& call) {
  auto* ctx = dynamic_cast<CudaContext*>(call.context);
  if (!ctx)
    return op_error(call, StatusCode::kInternal, "CUDA kernel called without a CUDA device");
  cudaSetDevice(ctx->device);  // cheap when it is current already
  return ctx;
}

/// A CUDA runtime error as the node's error.
inline Status launch_status(const KernelCall& call, cudaError_t e) {
  if (e == cudaSuccess) return ok_status();
  return op_error(call, StatusCode::kInternal, "CUDA: ", cudaGetErrorString(e));
}

template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*),
          Status (*LaunchFn)(const Params&, const KernelCall&, CudaContext&)>
class CudaKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, PrepareFn(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    TIR_ASSIGN_OR_RETURN(CudaContext * ctx, cuda_context(call));
    return LaunchFn(params_, call, *ctx);
  }

 private:
  Params params_{};
};

}  // namespace tir::kernels::cuda
