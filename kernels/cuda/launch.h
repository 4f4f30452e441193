// Launchers of tir's own CUDA kernels (elementwise.cu, norm.cu): plain functions over device
// pointers and shapes passed by value, so the .cu files need no tir header and the kernel
// classes (cuda_kernels.cc) are ordinary C++. Every launcher queues work on `stream` and
// returns the launch's error (cudaGetLastError); none synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernels/ops/binary.h"
#include "kernels/ops/unary.h"

namespace tir::kernels::cuda {

inline constexpr int kMaxDims = 16;

/// out[out_offset + sum(i_d * out_strides[d])] = in[in_offset + sum(i_d * in_strides[d])]
/// for every index i in `sizes` (strides in elements, may be 0 or negative).
struct StridedCopy {
  int rank = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t in_offset = 0, out_offset = 0;
};
cudaError_t strided_copy(const void* in, void* out, size_t elem_size, const StridedCopy& s,
                         cudaStream_t stream);

/// One side of a binary op: a float32 tensor read through `strides` (0 where broadcast), a
/// bool tensor (uint8, read as 0/1) likewise, a number, or a 0-d tensor on the device
/// (float32, int64, int32 or float64, read as float32).
enum class OperandKind : int {
  kTensor,
  kBoolTensor,
  kNumber,
  kDeviceScalar,
  kDeviceScalarI64,
  kDeviceScalarI32,
  kDeviceScalarF64
};
struct Operand {
  OperandKind kind = OperandKind::kNumber;
  const void* data = nullptr;
  float value = 0;
  int64_t strides[8] = {};
};
using ops::BinaryKind;
/// out = a (op) alpha * b over the dense output shape `sizes` (rank <= 8), float32.
cudaError_t binary_f32(BinaryKind op, const Operand& a, const Operand& b, float alpha, float* out,
                       int rank, const int64_t* sizes, cudaStream_t stream);

using ops::UnaryKind;
/// y = op(x) elementwise over float32, for the kinds the act kernels take
/// (kernels/shapes/unary/activation.h); `a` and `b` are the op's scalar arguments.
cudaError_t unary_f32(UnaryKind op, const float* x, float* y, int64_t n, float a, float b,
                      cudaStream_t stream);

/// out[batch, i, j] = beta * c[batch offset + i * row_stride + j * col_stride] for the
/// `batches` matrices of [m, n], batch offsets from `batch` sizes and `strides` (rank <= 8):
/// the C term of a GEMM, which cuBLAS then accumulates onto (beta 1).
cudaError_t broadcast_fill_f32(const float* c, float* out, float beta, int batch_rank,
                               const int64_t* batch, const int64_t* strides, int64_t m, int64_t n,
                               int64_t row_stride, int64_t col_stride, cudaStream_t stream);

/// Layer norm over rows of `cols`; w, b, mean_out, rstd_out may be null.
cudaError_t layer_norm_f32(const float* x, const float* w, const float* b, float* y,
                           float* mean_out, float* rstd_out, int64_t rows, int64_t cols, float eps,
                           cudaStream_t stream);

/// (Log-)softmax of x viewed as [outer, n, inner] over the middle dim.
cudaError_t softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log,
                        cudaStream_t stream);

/// out[r, :] = weight[idx[r], :]; an index outside [0, rows) writes zeros and sets
/// *error_flag to 1 (the device reports it when results are copied back).
cudaError_t embedding_f32(const float* weight, const void* idx, bool idx_int64, float* out,
                          int64_t count, int64_t rows, int64_t dim, int* error_flag,
                          cudaStream_t stream);

}  // namespace tir::kernels::cuda
