// tir's own CUDA kernels for layer norm, (log-)softmax and embedding (launch.h), float32.
// Row reductions use one block per row with a shared-memory tree; layer norm takes two
// passes (mean, then centred variance) as the CPU kernels do.
#include <cfloat>
#include <cmath>

#include "kernels/cuda/launch.h"

namespace tir::kernels::cuda {
namespace {

constexpr int kThreads = 256;

enum class Reduce { kSum, kMax };

/// Reduces `v` across the block; every thread gets the result. `buf` holds kThreads floats.
template <Reduce R>
__device__ float block_reduce(float v, float* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = R == Reduce::kSum ? buf[threadIdx.x] + buf[threadIdx.x + s]
                                           : fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = buf[0];
  __syncthreads();
  return r;
}

__global__ void layer_norm_kernel(const float* x, const float* w, const float* b, float* y,
                                  float* mean_out, float* rstd_out, int64_t cols, float eps) {
  __shared__ float buf[kThreads];
  const int64_t row = blockIdx.x;
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
  const float mean = block_reduce<Reduce::kSum>(s, buf) / static_cast<float>(cols);
  float v = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = xr[c] - mean;
    v += d * d;
  }
  const float var = block_reduce<Reduce::kSum>(v, buf) / static_cast<float>(cols);
  const float rstd = 1.0f / sqrtf(var + eps);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float t = (xr[c] - mean) * rstd;
    if (w) t *= w[c];
    if (b) t += b[c];
    yr[c] = t;
  }
  if (threadIdx.x == 0 && mean_out) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

/// One block per (outer, inner) pair; the reduced dim has stride `inner`.
__global__ void softmax_kernel(const float* x, float* y, int64_t n, int64_t inner, bool log) {
  __shared__ float buf[kThreads];
  const int64_t o = blockIdx.x / inner, i = blockIdx.x % inner;
  const float* xr = x + o * n * inner + i;
  float* yr = y + o * n * inner + i;
  float mx = -INFINITY;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) mx = fmaxf(mx, xr[k * inner]);
  mx = block_reduce<Reduce::kMax>(mx, buf);
  float s = 0;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) s += expf(xr[k * inner] - mx);
  s = block_reduce<Reduce::kSum>(s, buf);
  if (log) {
    const float lse = logf(s);
    for (int64_t k = threadIdx.x; k < n; k += blockDim.x) yr[k * inner] = xr[k * inner] - mx - lse;
  } else {
    const float inv = 1.0f / s;
    for (int64_t k = threadIdx.x; k < n; k += blockDim.x)
      yr[k * inner] = expf(xr[k * inner] - mx) * inv;
  }
}

__global__ void embedding_kernel(const float* weight, const void* idx, bool idx_int64, float* out,
                                 int64_t rows, int64_t dim, int* error_flag) {
  const int64_t r = blockIdx.x;
  const int64_t k =
      idx_int64 ? static_cast<const int64_t*>(idx)[r] : static_cast<const int32_t*>(idx)[r];
  const bool valid = k >= 0 && k < rows;
  if (!valid && threadIdx.x == 0 && error_flag) atomicExch(error_flag, 1);
  for (int64_t c = threadIdx.x; c < dim; c += blockDim.x)
    out[r * dim + c] = valid ? weight[k * dim + c] : 0.0f;
}

}  // namespace

cudaError_t layer_norm_f32(const float* x, const float* w, const float* b, float* y,
                           float* mean_out, float* rstd_out, int64_t rows, int64_t cols, float eps,
                           cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  if (rows > 2147483647) return cudaErrorInvalidValue;
  layer_norm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, w, b, y, mean_out,
                                                                          rstd_out, cols, eps);
  return cudaGetLastError();
}

cudaError_t softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log,
                        cudaStream_t stream) {
  const int64_t blocks = outer * inner;
  if (blocks == 0 || n == 0) return cudaSuccess;
  if (blocks > 2147483647) return cudaErrorInvalidValue;
  softmax_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, y, n, inner, log);
  return cudaGetLastError();
}

cudaError_t embedding_f32(const float* weight, const void* idx, bool idx_int64, float* out,
                          int64_t count, int64_t rows, int64_t dim, int* error_flag,
                          cudaStream_t stream) {
  if (count == 0 || dim == 0) return cudaSuccess;
  if (count > 2147483647) return cudaErrorInvalidValue;
  embedding_kernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(
      weight, idx, idx_int64, out, rows, dim, error_flag);
  return cudaGetLastError();
}

}  // namespace tir::kernels::cuda
