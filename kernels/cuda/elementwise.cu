// tir's own CUDA kernels for data movement and elementwise float32 math (launch.h). One
// thread per output element, grid-stride loops; index arithmetic in int64.
#include <cmath>

#include "kernels/cuda/launch.h"
#include "kernels/ops/unary.h"

namespace tir::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

template <typename T>
__global__ void strided_copy_kernel(const T* in, T* out, StridedCopy s, int64_t total) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < total;
       o += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = o, io = s.in_offset, oo = s.out_offset;
    for (int d = s.rank - 1; d >= 0; --d) {
      const int64_t i = rest % s.sizes[d];
      rest /= s.sizes[d];
      io += i * s.in_strides[d];
      oo += i * s.out_strides[d];
    }
    out[oo] = in[io];
  }
}

struct Sizes8 {
  int64_t v[8];
};

__device__ float operand_at(const Operand& x, int64_t off) {
  switch (x.kind) {
    case OperandKind::kTensor:
      return static_cast<const float*>(x.data)[off];
    case OperandKind::kBoolTensor:
      return static_cast<const unsigned char*>(x.data)[off] ? 1.0f : 0.0f;
    case OperandKind::kDeviceScalar:
      return *static_cast<const float*>(x.data);
    case OperandKind::kDeviceScalarI64:
      return static_cast<float>(*static_cast<const long long*>(x.data));
    case OperandKind::kDeviceScalarI32:
      return static_cast<float>(*static_cast<const int*>(x.data));
    case OperandKind::kDeviceScalarF64:
      return static_cast<float>(*static_cast<const double*>(x.data));
    case OperandKind::kNumber:
      break;
  }
  return x.value;
}

__global__ void binary_kernel(BinaryKind op, Operand a, Operand b, float alpha, float* out,
                              int rank, Sizes8 sizes, int64_t total) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < total;
       o += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = o, ao = 0, bo = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = rest % sizes.v[d];
      rest /= sizes.v[d];
      ao += i * a.strides[d];
      bo += i * b.strides[d];
    }
    const float x = operand_at(a, ao), y = operand_at(b, bo);
    out[o] = ops::binary_apply(op, x, y, alpha);
  }
}

__device__ float unary_at(UnaryKind op, float x, float a, float b) {
  switch (op) {
    case UnaryKind::kRelu:
      return ops::relu(x);
    case UnaryKind::kGeluErf:
      return ops::gelu_erf(x);
    case UnaryKind::kGeluTanh:
      return ops::gelu_tanh(x);
    case UnaryKind::kTanh:
      return tanhf(x);
    case UnaryKind::kSigmoid:
      return ops::sigmoid(x);
    case UnaryKind::kSilu:
      return ops::silu(x);
    case UnaryKind::kHardswish:
      return ops::hardswish(x);
    case UnaryKind::kHardsigmoid:
      return ops::hardsigmoid(x);
    case UnaryKind::kHardtanh:
      return fminf(fmaxf(x, a), b);
    case UnaryKind::kRelu6:
      return ops::relu6(x);
    case UnaryKind::kNeg:
      return -x;
    case UnaryKind::kExp:
      return expf(x);
    case UnaryKind::kLog:
      return logf(x);
    case UnaryKind::kSqrt:
      return sqrtf(x);
    case UnaryKind::kRsqrt:
      return rsqrtf(x);
    case UnaryKind::kAbs:
      return fabsf(x);
    case UnaryKind::kErf:
      return erff(x);
    case UnaryKind::kPowScalar:
      return powf(x, a);
    case UnaryKind::kRsub:
      return a - b * x;
    case UnaryKind::kSubScalar:
      return x - b * a;
    case UnaryKind::kDivScalar:
      return x / a;
    default:  // not an act op
      return x;
  }
}

__global__ void unary_kernel(UnaryKind op, const float* x, float* y, int64_t n, float a, float b) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    y[i] = unary_at(op, x[i], a, b);
}

__global__ void broadcast_fill_kernel(const float* c, float* out, float beta, int batch_rank,
                                      Sizes8 batch, Sizes8 strides, int64_t m, int64_t n,
                                      int64_t row_stride, int64_t col_stride, int64_t total) {
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < total;
       o += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = o % n, i = (o / n) % m;
    int64_t rest = o / (m * n), off = i * row_stride + j * col_stride;
    for (int d = batch_rank - 1; d >= 0; --d) {
      off += (rest % batch.v[d]) * strides.v[d];
      rest /= batch.v[d];
    }
    out[o] = beta * c[off];
  }
}

Sizes8 sizes8(int rank, const int64_t* v) {
  Sizes8 s{};
  for (int d = 0; d < rank && d < 8; ++d) s.v[d] = v[d];
  return s;
}

}  // namespace

cudaError_t strided_copy(const void* in, void* out, size_t elem_size, const StridedCopy& s,
                         cudaStream_t stream) {
  int64_t total = 1;
  for (int d = 0; d < s.rank; ++d) total *= s.sizes[d];
  if (total == 0) return cudaSuccess;
  const int blocks = blocks_for(total);
  switch (elem_size) {
    case 1:
      strided_copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint8_t*>(in),
                                                           static_cast<uint8_t*>(out), s, total);
      break;
    case 2:
      strided_copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint16_t*>(in),
                                                           static_cast<uint16_t*>(out), s, total);
      break;
    case 4:
      strided_copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint32_t*>(in),
                                                           static_cast<uint32_t*>(out), s, total);
      break;
    case 8:
      strided_copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint64_t*>(in),
                                                           static_cast<uint64_t*>(out), s, total);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t binary_f32(BinaryKind op, const Operand& a, const Operand& b, float alpha, float* out,
                       int rank, const int64_t* sizes, cudaStream_t stream) {
  if (rank > 8) return cudaErrorInvalidValue;
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= sizes[d];
  if (total == 0) return cudaSuccess;
  binary_kernel<<<blocks_for(total), kThreads, 0, stream>>>(op, a, b, alpha, out, rank,
                                                            sizes8(rank, sizes), total);
  return cudaGetLastError();
}

cudaError_t unary_f32(UnaryKind op, const float* x, float* y, int64_t n, float a, float b,
                      cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  unary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, x, y, n, a, b);
  return cudaGetLastError();
}

cudaError_t broadcast_fill_f32(const float* c, float* out, float beta, int batch_rank,
                               const int64_t* batch, const int64_t* strides, int64_t m, int64_t n,
                               int64_t row_stride, int64_t col_stride, cudaStream_t stream) {
  if (batch_rank > 8) return cudaErrorInvalidValue;
  int64_t total = m * n;
  for (int d = 0; d < batch_rank; ++d) total *= batch[d];
  if (total == 0) return cudaSuccess;
  broadcast_fill_kernel<<<blocks_for(total), kThreads, 0, stream>>>(
      c, out, beta, batch_rank, sizes8(batch_rank, batch), sizes8(batch_rank, strides), m, n,
      row_stride, col_stride, total);
  return cudaGetLastError();
}

}  // namespace tir::kernels::cuda
