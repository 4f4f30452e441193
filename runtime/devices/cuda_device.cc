// The CUDA device, compiled into the CUDA module (runtime/devices/cuda_module.cc) with the
// kernels of kernels/cuda/. Everything it does is queued on one stream in
// order: kernels, host-to-device copies (through two pinned staging buffers, so the caller's
// memory may change as soon as copy_from returns and large uploads overlap the memcpy into
// the staging buffer with the DMA out of the other), device-to-device copies. Copies to the
// host wait for the stream, then check the flag kernels set on a bad index.
#include "runtime/devices/cuda_device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "kernels/cuda/cuda_context.h"

namespace tir {
namespace {

using kernels::cuda::CudaContext;

constexpr size_t kStagingBytes = size_t{4} << 20;

/// A failed runtime call as one line. The thread's last-error state is cleared, so a failure
/// the caller handles (an allocation too large, say) is not reported again by the next kernel
/// launch's cudaGetLastError.
Status cuda_error(cudaError_t e, std::string_view what) {
  (void)cudaGetLastError();
  return make_error(StatusCode::kInternal, "device 'cuda': ", what, ": ", cudaGetErrorString(e));
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(const kernels::KernelRegistry& kernels) : kernels_(kernels) {}
  ~CudaDevice() override {
    cudaSetDevice(ctx_.device);
    if (ctx_.stream) cudaStreamSynchronize(ctx_.stream);
    for (int k = 0; k < 2; ++k) {
      if (staged_[k]) cudaEventDestroy(staged_[k]);
      if (staging_[k]) cudaFreeHost(staging_[k]);
    }
    if (ctx_.blas) cublasDestroy(ctx_.blas);
    if (ctx_.error_flag) cudaFree(ctx_.error_flag);
    if (ctx_.stream) cudaStreamDestroy(ctx_.stream);
  }

  Status init(int index) {
    ctx_.device = index;
    cudaError_t e = cudaSetDevice(index);
    if (e != cudaSuccess) return cuda_error(e, "cannot select the GPU");
    if ((e = cudaStreamCreateWithFlags(&ctx_.stream, cudaStreamNonBlocking)) != cudaSuccess)
      return cuda_error(e, "cannot create a stream");
    void* flag = nullptr;
    if ((e = cudaMalloc(&flag, sizeof(int))) != cudaSuccess)
      return cuda_error(e, "cannot allocate its error flag");
    ctx_.error_flag = static_cast<int*>(flag);
    if ((e = cudaMemset(ctx_.error_flag, 0, sizeof(int))) != cudaSuccess)
      return cuda_error(e, "cannot clear its error flag");
    for (int k = 0; k < 2; ++k) {
      if ((e = cudaMallocHost(&staging_[k], kStagingBytes)) != cudaSuccess)
        return cuda_error(e, "cannot allocate pinned staging memory");
      if ((e = cudaEventCreateWithFlags(&staged_[k], cudaEventDisableTiming)) != cudaSuccess)
        return cuda_error(e, "cannot create an event");
    }
    if (cublasCreate(&ctx_.blas) != CUBLAS_STATUS_SUCCESS)
      return make_error(StatusCode::kInternal, "device 'cuda': cannot create a cuBLAS handle");
    cublasSetStream(ctx_.blas, ctx_.stream);
    // float32 GEMMs stay float32: no TF32 tensor-op math unless a later option asks for it.
    cublasSetMathMode(ctx_.blas, CUBLAS_DEFAULT_MATH);
    // The flag's memset ran on the legacy stream, which a non-blocking one does not wait for.
    if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_error(e, "cannot initialize");
    return ok_status();
  }

  std::string_view name() const override { return "cuda"; }
  DeviceType type() const override { return DeviceType::kCuda; }
  bool host_accessible() const override { return false; }

  Result<void*> alloc(size_t bytes, size_t alignment) override {
    if (alignment > 256)  // cudaMalloc aligns to 256 bytes
      return make_error(StatusCode::kInvalidArgument, "device 'cuda': alignment ", alignment,
                        " is over 256");
    cudaSetDevice(ctx_.device);
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, std::max<size_t>(bytes, 1));
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // as cuda_error: the next launch must not report this failure
      return make_error(StatusCode::kInternal, "device 'cuda': cannot allocate ", bytes,
                        " bytes: ", cudaGetErrorString(e));
    }
    return p;
  }
  void free(void* ptr) override {
    cudaSetDevice(ctx_.device);
    cudaFree(ptr);
  }

  Status copy_from(void* dst, const Device& from, const void* src, size_t bytes) override {
    if (bytes == 0) return ok_status();
    cudaSetDevice(ctx_.device);
    if (from.type() == DeviceType::kCuda) {
      const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx_.stream);
      return e == cudaSuccess ? ok_status() : cuda_error(e, "device-to-device copy");
    }
    if (!from.host_accessible())
      return make_error(StatusCode::kUnsupported, "device 'cuda': cannot copy from '", from.name(),
                        "'");
    return upload(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), bytes);
  }

  Status copy_to(void* dst, const Device& to, const void* src, size_t bytes) override {
    if (bytes == 0) return ok_status();
    cudaSetDevice(ctx_.device);
    if (to.type() == DeviceType::kCuda) {
      const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx_.stream);
      return e == cudaSuccess ? ok_status() : cuda_error(e, "device-to-device copy");
    }
    if (!to.host_accessible())
      return make_error(StatusCode::kUnsupported, "device 'cuda': cannot copy to '", to.name(),
                        "'");
    const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx_.stream);
    if (e != cudaSuccess) return cuda_error(e, "device-to-host copy");
    return synchronize();
  }

  Status synchronize() override {
    cudaSetDevice(ctx_.device);
    cudaError_t e = cudaStreamSynchronize(ctx_.stream);
    if (e != cudaSuccess) return cuda_error(e, "a queued kernel or copy failed");
    int flag = 0;
    e = cudaMemcpy(&flag, ctx_.error_flag, sizeof(int), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return cuda_error(e, "cannot read its error flag");
    if (flag != 0) {
      cudaMemsetAsync(ctx_.error_flag, 0, sizeof(int), ctx_.stream);
      return make_error(StatusCode::kInvalidArgument,
                        "device 'cuda': an index input is out of range (aten::embedding)");
    }
    return ok_status();
  }

  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    return kernels_.find(op, DeviceType::kCuda, dtype, kernels::KernelImpl::kOptimized);
  }
  bool supports_op(std::string_view op) const override {
    return kernels_.has_op(op, DeviceType::kCuda);
  }
  /// cuBLAS and tir's CUDA kernels compute in float32 only (no TF32, no bf16 or int8 path).
  Precision precision(Precision asked) const override {
    static std::once_flag said;
    if (asked != Precision::kFloat32)
      std::call_once(said, [asked] {
        std::fprintf(stderr, "tir: warning: device 'cuda' computes in float32; %s was asked for\n",
                     std::string(precision_name(asked)).c_str());
      });
    return Precision::kFloat32;
  }
  kernels::DeviceContext* context() override { return &ctx_; }

 private:
  /// Host to device through the two pinned buffers, alternating: a buffer is refilled once
  /// the copy queued out of it has finished (its event).
  Status upload(uint8_t* dst, const uint8_t* src, size_t bytes) {
    std::lock_guard lock(staging_mu_);
    for (size_t off = 0, chunk = 0; off < bytes; off += kStagingBytes, ++chunk) {
      const int k = static_cast<int>(chunk % 2);
      const size_t n = std::min(kStagingBytes, bytes - off);
      cudaError_t e = cudaEventSynchronize(staged_[k]);
      if (e != cudaSuccess) return cuda_error(e, "host-to-device copy");
      std::memcpy(staging_[k], src + off, n);
      e = cudaMemcpyAsync(dst + off, staging_[k], n, cudaMemcpyHostToDevice, ctx_.stream);
      if (e != cudaSuccess) return cuda_error(e, "host-to-device copy");
      if ((e = cudaEventRecord(staged_[k], ctx_.stream)) != cudaSuccess)
        return cuda_error(e, "host-to-device copy");
    }
    return ok_status();
  }

  const kernels::KernelRegistry& kernels_;
  CudaContext ctx_;
  std::mutex staging_mu_;
  void* staging_[2] = {nullptr, nullptr};
  cudaEvent_t staged_[2] = {nullptr, nullptr};
};

}  // namespace

Result<std::shared_ptr<Device>> cuda_device_create(int index,
                                                   const kernels::KernelRegistry& kernels) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return make_error(StatusCode::kUnsupported, "device 'cuda': no usable GPU (",
                      cudaGetErrorString(e), ")");
  if (count == 0)
    return make_error(StatusCode::kUnsupported, "device 'cuda': no usable GPU (none found)");
  if (index < 0 || index >= count)
    return make_error(StatusCode::kInvalidArgument, "device 'cuda': GPU ", index,
                      " does not exist (", count, " found)");
  auto device = std::make_shared<CudaDevice>(kernels);
  TIR_RETURN_IF_ERROR(device->init(index));
  return std::shared_ptr<Device>(std::move(device));
}

}  // namespace tir
