// Symmetric per-channel int8 quantization of float32 weights, the one definition shared by
// `tirc weights pack --dtype int8` (stored int8 weights) and the int8 GEMM kernels (weights
// quantized when a node is prepared): a tensor quantized either way holds the same bytes, so
// a model runs bit-identically from an int8 weight file and from its float32 original.
//
// For a 2-D [rows, cols] tensor and `axis` 0 (one scale per row: linear's [N, K] weight) or
// 1 (one per column: addmm/mm's [K, N] weight):
//   scale[c] = max_i |w[c, i]| / 127   (1 when the channel is all zeros)
//   q[c, i]  = round_half_even(w[c, i] / scale[c]), in [-127, 127]
//   w[c, i] ~= q[c, i] * scale[c]
// A stored int8 entry's bytes (ir/weight_file.h) are q in the tensor's layout, padded to
// 64 bytes, then the float32 scales, then, when the entry is smoothed (`tir-calibrate`,
// SmoothQuant), one float32 1/s per input channel (the other axis): q then
// quantizes w * s, and w ~= q * scale * (1/s); the int8 GEMM multiplies its activations by
// 1/s, so (a / s) @ (s w) = a @ w.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tir {

/// Writes q (rows * cols, same row-major layout as w) and scales (rows when axis == 0,
/// cols when axis == 1).
void quantize_int8_per_channel(const float* w, int64_t rows, int64_t cols, int axis, int8_t* q,
                               float* scales);

/// The inverse: w[r, c] = q[r, c] * scale of its channel [* inv_smooth of its input
/// channel: inv_smooth[c] when axis == 0, inv_smooth[r] when axis == 1; null: none].
void dequantize_int8_per_channel(const int8_t* q, const float* scales, int64_t rows, int64_t cols,
                                 int axis, float* w, const float* inv_smooth = nullptr);

/// SmoothQuant's factor of one input channel: s = max|a|^alpha / max|w|^(1 - alpha), from
/// the largest |activation| a GEMM saw in that channel and the largest |weight| of it; 1 when
/// either is zero or not finite, else clamped to [1e-4, 1e4].
float smooth_factor(float max_abs_activation, float max_abs_weight, float alpha);

/// Bytes of a stored int8 entry: q padded to 64, then one float per channel.
constexpr size_t int8_scales_offset(int64_t numel) { return (size_t(numel) + 63) / 64 * 64; }
constexpr size_t int8_stored_bytes(int64_t numel, int64_t channels) {
  return int8_scales_offset(numel) + size_t(channels) * sizeof(float);
}
/// A smoothed entry's bytes: the above, then one float per input channel.
constexpr size_t int8_smoothed_bytes(int64_t numel, int64_t channels, int64_t in_channels) {
  return int8_stored_bytes(numel, channels) + size_t(in_channels) * sizeof(float);
}

/// The [rows, cols] matrix a stored int8 tensor of `rank` dims is quantized as: a 2-D tensor
/// itself (axis 0 or 1); a convolution weight [OC, C/groups, KH, KW] (rank 3 to 6, axis 0 only)
/// as [OC, C/groups * KH * KW], one scale per output channel.
struct Int8Matrix {
  int64_t rows = 0, cols = 0;
};
constexpr bool int8_shape_valid(size_t rank, int axis) {
  return rank == 2 ? axis == 0 || axis == 1 : rank >= 3 && rank <= 6 && axis == 0;
}
inline Int8Matrix int8_matrix(const int64_t* shape, size_t rank) {
  Int8Matrix m{rank ? shape[0] : 0, 1};
  for (size_t d = 1; d < rank; ++d) m.cols *= shape[d];
  return m;
}

}  // namespace tir
