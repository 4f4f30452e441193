// Group-wise 4-bit quantization of float32 weights, the one definition shared by
// `tirc weights pack --dtype int4` (the stored bytes), the reference int4 GEMM
// (kernels/reference/quantization/int4_gemm.h) and the CPU kernels (kernels/cpu/int4).
//
// A linear weight [N, K] (one output channel per row) is cut along K into groups of `group`
// consecutive values (32 or 128; K % group == 0). Each group has a float32 scale s and offset
// m, and each value a 4-bit code q in 0..15 with w ~= q * s + m:
//   symmetric (llama.cpp's Q4_0 rule): x = the value of largest |w| in the group (sign kept),
//     s = x / -8, q = clamp(round_half_even(w / s) + 8, 0, 15); m = -8 s (not stored): the
//     extreme value maps to code 0 exactly and zero is code 8.
//   asymmetric: s = (max - min) / 15, m = min, q = clamp(round_half_even((w - m) / s), 0, 15).
//   An all-zero (or constant) group has s = 1 (symmetric) or s = 0 (asymmetric: w = m).
//
// Stored bytes of an int4 entry (ir/weights.fbs quant_group > 0), the layout the AVX2 kernel
// reads without repacking:
//   codes: N * K / 2 bytes, row after row; each run of 32 values of a row is 16 bytes whose
//          byte j holds q[j] in its low nibble and q[j + 16] in its high nibble (one 128-bit
//          load, an `and 0x0f` and a shift give the 32 codes in order), zero-padded to 64;
//   scales: float32 [N, K / group];
//   offsets (asymmetric only): float32 [N, K / group], m.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tir {

/// Values per run of 16 code bytes (the unit of the nibble layout above).
inline constexpr int64_t kInt4Block = 32;

constexpr bool int4_group_valid(int64_t group) { return group == 32 || group == 128; }

constexpr size_t int4_scales_offset(int64_t rows, int64_t cols) {
  return (size_t(rows * cols / 2) + 63) / 64 * 64;
}
constexpr size_t int4_offsets_offset(int64_t rows, int64_t cols, int64_t group) {
  return int4_scales_offset(rows, cols) + size_t(rows * (cols / group)) * sizeof(float);
}
constexpr size_t int4_stored_bytes(int64_t rows, int64_t cols, int64_t group, bool asymmetric) {
  return int4_offsets_offset(rows, cols, group) +
         (asymmetric ? size_t(rows * (cols / group)) * sizeof(float) : 0);
}

/// Quantizes w [rows, cols] (cols % group == 0, group 32 or 128) into `stored`
/// (int4_stored_bytes, laid out as above; padding zeroed).
void quantize_int4_groups(const float* w, int64_t rows, int64_t cols, int64_t group,
                          bool asymmetric, uint8_t* stored);

/// The codes of values [0, 32) of one run of 16 bytes, in order.
void int4_unpack_block(const uint8_t* bytes, uint8_t* q);

/// A view of an int4 entry's stored bytes.
struct Int4View {
  const uint8_t* codes = nullptr;
  const float* scales = nullptr;   // [rows, cols / group]
  const float* offsets = nullptr;  // [rows, cols / group]; null: symmetric (m = -8 s)
  int64_t rows = 0, cols = 0, group = 0;
};
Int4View int4_view(const uint8_t* stored, int64_t rows, int64_t cols, int64_t group,
                   bool asymmetric);

/// Rows [r0, r1) of the weight as float32, q * s + m, into w (row r0 first).
void dequantize_int4_rows(const Int4View& v, int64_t r0, int64_t r1, float* w);

}  // namespace tir
