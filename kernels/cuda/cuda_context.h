// The handles a CUDA device owns and its kernels use (kernels::DeviceContext): the GPU's
// index, one stream every kernel and copy of the device is queued on (so they run in order),
// a cuBLAS handle bound to that stream, and a device int that kernels set when they meet a
// bad index (the device reports it when results are copied back; see launch.h).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "kernels/kernel.h"

namespace tir::kernels::cuda {

struct CudaContext final : DeviceContext {
  int device = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  int* error_flag = nullptr;  // device memory, 0 while no kernel reported an error
};

}  // namespace tir::kernels::cuda
